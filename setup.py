"""Builds oomlens._core with CMake: the build the binary has (CMake embeds the rules),
so the module and the CLI never disagree. Metadata is in pyproject.toml."""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def require_wheel():
    """Debian's setuptools builds wheels only with the wheel package; without it pip
    says no more than "invalid command 'bdist_wheel'"."""
    if not any(arg.startswith("bdist_wheel") for arg in sys.argv[1:]):
        return
    try:
        import wheel  # noqa: F401
    except ImportError:
        sys.exit("oomlens: building a wheel needs the 'wheel' package, which is not installed "
                 "(help: apt-get install python3-wheel on Debian and Ubuntu, or pip install wheel; "
                 "then run the install again)")


def say(message):
    """A line the user sees while pip hides the build's output (pip -v shows all of it)."""
    print(message, file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        return
    try:
        with open("/dev/tty", "w") as tty:  # pip captures stderr; the terminal is still there
            tty.write("\n" + message + "\n")
    except OSError:
        pass  # no terminal (CI): the message is in pip's log


def cmake_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(oomlens VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(build_dir, exist_ok=True)
        cores = os.cpu_count() or 1
        say(f"oomlens: building the C++ core with CMake in {build_dir}: a few minutes on {cores} "
            f"core{'s' if cores != 1 else ''} (pip install -v . shows the compiler's progress)")
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                               "-DOOMLENS_BUILD_TESTS=OFF", "-DOOMLENS_BUILD_BENCH=OFF", "-DOOMLENS_BUILD_PYTHON=ON",
                               "-DPython_EXECUTABLE=" + sys.executable])
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "oomlens_python",
                               "-j", str(cores)])
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(build_dir, "python", "oomlens", os.path.basename(target)), target)


require_wheel()
setup(version=cmake_version(),
      ext_modules=[Extension("oomlens._core", sources=[])],
      cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build-python"}})

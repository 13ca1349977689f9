"""`python -m oomlens ...`: the oomlens command line, run by the same library."""
import sys

from . import _core


def main() -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    return _core.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())

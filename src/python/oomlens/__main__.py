"""`python -m oomlens ...`: the oomlens command line, run by the same library;
`python -m oomlens fleet ...` scans a fleet's logs on Dask (oomlens.fleet)."""
import sys

from . import _core


def main() -> int:
    if sys.argv[1:2] == ["fleet"]:
        from .fleet import main as fleet_main
        return fleet_main(sys.argv[2:])
    sys.stdout.flush()
    sys.stderr.flush()
    return _core.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())

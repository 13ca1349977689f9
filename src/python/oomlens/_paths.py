"""Paths as the command line reads them, shared by the package and the fleet."""
import os
from typing import List


def files_under(directory: str) -> List[str]:
    """Regular files under directory, in name order (symlinks not followed), as `oomlens -r`."""
    found = []
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        found.extend(os.path.join(root, f) for f in sorted(files) if os.path.isfile(os.path.join(root, f))
                     and not os.path.islink(os.path.join(root, f)))
    return found

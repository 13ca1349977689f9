// Knobs of a Scanner that only tests turn (the public ScanOptions has none).
#ifndef OOMLENS_CORE_RUN_SCAN_TESTING_H_
#define OOMLENS_CORE_RUN_SCAN_TESTING_H_

#include "core/recognize/read_ahead.h"
#include "oomlens/scanner.h"

namespace oomlens {

struct ScannerTesting {
  /// With read_ahead: which figure lines the second thread reads.
  static void SetReadFigures(Scanner* scanner, ReadFigures figures);
  /// With read_ahead: a file is read ahead whatever its first MiB holds
  /// (ReadAheadPays), so tests compare both ways on small, quiet logs.
  static void ReadAheadWhateverTheProbe(Scanner* scanner);
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_RUN_SCAN_TESTING_H_

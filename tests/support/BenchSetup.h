#pragma once

namespace sbw {
class HypervisorConnection;
}

namespace sbw::test {

/// The start of a benchmark's main(), once its QCoreApplication exists: the workbench's info
/// logging off (the figures are the output), and the repetitions asked for (argv[1], at least
/// 1; `defaultRepetitions` without it).
int benchRepetitions(int argc, char* argv[], int defaultRepetitions = 3);

/// Opens `connection`; false, with libvirt's reason on stderr, when it cannot be.
bool openBenchConnection(HypervisorConnection& connection);

} // namespace sbw::test

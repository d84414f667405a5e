#include "BenchSetup.h"

#include "hypervisor/HypervisorConnection.h"

#include <QLoggingCategory>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace sbw::test {

int benchRepetitions(int argc, char* argv[], int defaultRepetitions)
{
    QLoggingCategory::setFilterRules(QStringLiteral("sbw.*.info=false"));
    return argc > 1 ? std::max(1, std::atoi(argv[1])) : defaultRepetitions;
}

bool openBenchConnection(HypervisorConnection& connection)
{
    if (auto opened = connection.ensureOpen(); !opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error().message));
        return false;
    }
    return true;
}

} // namespace sbw::test

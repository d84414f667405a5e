#include "BenchWorkspace.h"

#include "workspace/Workspace.h"

#include <QCoreApplication>

#include <cstdio>

namespace sbw::test {

void failBench(const QString& what)
{
    throw BenchFailure{what};
}

int measureOnNewWorkspace(HypervisorConnection& connection, const QString& namePrefix, const char* program,
                          const std::function<void(Workspace&)>& measure)
{
    return measureOnNewWorkspace(connection, namePrefix, {}, program, measure);
}

int measureOnNewWorkspace(HypervisorConnection& connection, const QString& namePrefix, const WorkspaceSettings& settings,
                          const char* program, const std::function<void(Workspace&)>& measure)
{
    const QString name = QStringLiteral("%1-%2").arg(namePrefix).arg(QCoreApplication::applicationPid());
    auto created = Workspace::create(connection, name, settings);
    if (!created) {
        std::fprintf(stderr, "%s: %s\n", program, qPrintable(created.error().message));
        return 1;
    }
    int status = 0;
    try {
        measure(*created.value());
    } catch (const BenchFailure& failure) {
        std::fprintf(stderr, "%s: %s\n", program, qPrintable(failure.what));
        status = 1;
    }
    if (auto removed = created.value()->remove(); !removed) {
        std::fprintf(stderr, "cannot remove workspace %s: %s\n", qPrintable(name), qPrintable(removed.error().message));
        status = 1;
    }
    return status;
}

} // namespace sbw::test

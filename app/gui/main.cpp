// sandbox-workbench: parses arguments and shows the main window; everything else is in sbw-ui.

#include "base/Logging.h"
#include "base/TerminationSignals.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "run/RunPane.h"
#include "window/MainWindow.h"
#include "workbench/Workbench.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>
#include <cstdio>

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess(); // before QApplication: no GLib event dispatcher
    sbw::initLogging(QStringLiteral("sandbox-workbench"), true);

    QApplication app(argc, argv);
    // QSettings: ~/.config/sandbox-workbench/sandbox-workbench.conf.
    QApplication::setOrganizationName(QStringLiteral("sandbox-workbench"));
    QApplication::setApplicationName(QStringLiteral("sandbox-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("Sandbox Workbench"));
    QApplication::setApplicationVersion(QStringLiteral(SBW_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("sandbox-workbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Runs scripts in disposable libvirt QEMU microVMs."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption connectOption(
        {QStringLiteral("c"), QStringLiteral("connect")},
        QStringLiteral("libvirt connection URI (default: $LIBVIRT_DEFAULT_URI, else "
                       "qemu:///system for root and qemu:///session for other users). Give it "
                       "again for more hosts; the first is where runs and agents' calls go "
                       "unless they name another. File > Add Connection adds hosts that the "
                       "next window remembers."),
        QStringLiteral("URI"));
    const QCommandLineOption scriptOption(
        QStringLiteral("script"),
        QStringLiteral("Load FILE into the editor (.sh/.bash: shell, otherwise Python)."),
        QStringLiteral("FILE"));
    const QCommandLineOption runOption(QStringLiteral("run"),
                                       QStringLiteral("Run the script as soon as the window "
                                                      "opens."));
    parser.addOption(connectOption);
    parser.addOption(scriptOption);
    parser.addOption(runOption);
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("Script to load (same as --script)."),
                                 QStringLiteral("[file]"));
    parser.process(app);

    QString scriptPath = parser.value(scriptOption);
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1 || (!positional.isEmpty() && !scriptPath.isEmpty())) {
        std::fprintf(stderr, "sandbox-workbench: give one script, with --script or as argument\n");
        return 2;
    }
    if (scriptPath.isEmpty() && !positional.isEmpty())
        scriptPath = positional.first();

    const QStringList uris = parser.values(connectOption);
    sbw::HypervisorConnection connection(sbw::defaultConnectionUri(uris.value(0)));
    sbw::Workbench workbench(&connection); // the services; the window shows them
    sbw::MainWindow window(&workbench);
    QApplication::setWindowIcon(window.windowIcon());
    for (const QString& uri : uris.mid(1)) {
        if (auto added = window.addConnection(uri, false); !added) {
            std::fprintf(stderr, "sandbox-workbench: %s\n", qPrintable(added.error().message));
            return 2;
        }
    }
    window.addRememberedConnections();

    if (!scriptPath.isEmpty()) {
        if (auto loaded = window.runPane()->loadScript(scriptPath); !loaded) {
            std::fprintf(stderr, "sandbox-workbench: %s\n", qPrintable(loaded.error().message));
            return 2;
        }
    }
    // kill, Ctrl-C in the terminal or a closed session: close as the person would, so that
    // the run is cancelled and the microVMs and their overlays are removed.
    sbw::TerminationSignals termination(2);
    QObject::connect(&termination, &sbw::TerminationSignals::received, &window, [&window](int number, int) {
        std::fprintf(stderr, "sandbox-workbench: signal %d: closing (again to quit at once)\n", number);
        window.close();
    });
    window.show();
    if (parser.isSet(runOption))
        QTimer::singleShot(0, window.runPane(), &sbw::RunPane::run);

    return app.exec();
}

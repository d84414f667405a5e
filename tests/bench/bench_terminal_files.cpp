// Terminal and file tree figures on one workspace, next to plain OpenSSH through the same
// virtio-serial channel in the same run:
//   - bytes per second through a terminal tab (TerminalTab: PTY shell, TerminalWidget on
//     libvterm, asciicast recording) for `cat` of a 10 MB text file, timed from the typed
//     Return until the widget's screen shows the file's last line; plain: `ssh … cat FILE >
//     /dev/null` (no PTY, output discarded);
//   - the time to list a 10,000-entry folder in the file tree (FileTreePane until its
//     FileTreeModel has loaded the folder); plain: `sftp -b` with `ls -1 FOLDER`.
// The plain clients connect through `socat - UNIX-CONNECT:<the channel's socket>` (path from
// the live domain XML). The guest serves one SSH connection at a time, so the workbench's
// session is closed before the plain clients run, with 0.5 s between connections. A plain
// client's time includes its SSH handshake, which the workbench's open session does not pay;
// the handshake alone (`ssh … true`, `sftp` with `pwd`) is measured too and the ratios are
// given against both.
//
//   build/tests/bench/bench_terminal_files [repetitions]   (default 3; medians)

#include "BenchStats.h"
#include "BenchWorkspace.h"
#include "ChannelSocketPath.h"
#include "PlainSshClient.h"
#include "TestEnvironment.h"
#include "files/FileTreeModel.h"
#include "files/FileTreePane.h"
#include "guest/GuestSession.h"
#include "guest/ShellChannel.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "terminal/TerminalTab.h"
#include "terminal/TerminalWidget.h"
#include "workspace/Workspace.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <sys/resource.h>
#include <vector>

namespace {

using namespace std::chrono_literals;
using sbw::test::mbPerSecond;
using sbw::test::median;

constexpr qint64 kFileBytes = 10 * 1000 * 1000;
constexpr int kFolderEntries = 10000;
const QByteArray kBigFile = "/root/bench/big.txt";
const QByteArray kFolder = "/root/bench/many";
/// The file's last line; nothing typed contains it, so seeing it means the whole file arrived.
const QString kLastLine = QStringLiteral("THE-END-OF-BIG-TXT");

[[noreturn]] void fail(const QString& what)
{
    sbw::test::failBench(what);
}

/// Runs `command` in the guest; fails the bench unless it exits 0.
void guestRun(sbw::GuestSession& session, const QByteArray& command)
{
    sbw::ExecRequest request;
    request.command = command;
    request.timeout = 300s;
    QByteArray errors;
    request.onStderr = [&](QByteArrayView bytes) { errors.append(bytes); };
    auto status = session.exec(request);
    if (!status || status->exitStatus != 0)
        fail(QStringLiteral("guest command failed: %1 %2")
                 .arg(QString::fromUtf8(command),
                      status ? QString::fromUtf8(errors) : status.error().message));
}

/// Waits in the event loop (sleeping between events, so that the guest keeps the CPU) until
/// `done` or `timeoutMs`; false on timeout.
template <typename Predicate> bool waitFor(Predicate done, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    QTimer tick; // wakes the loop to look at the clock
    tick.start(50);
    while (!done()) {
        if (timer.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

/// CPU time of this process so far (all threads), ms.
qint64 processCpuMs()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto ms = [](const timeval& t) { return qint64(t.tv_sec) * 1000 + t.tv_usec / 1000; };
    return ms(usage.ru_utime) + ms(usage.ru_stime);
}

/// Milliseconds from typing `cat FILE` into a fresh terminal tab until its screen shows the
/// file's last line; adds the workbench's CPU time meanwhile to `cpuMs` and the longest time
/// the GUI thread's event loop did not turn (a 5 ms timer's longest interval) to `stallMs`.
qint64 terminalCatMs(const std::shared_ptr<sbw::GuestSession>& session, std::vector<qint64>& cpuMs,
                     std::vector<qint64>& stallMs)
{
    // A plain login shell, as before shells could be detachable: the figures stay comparable.
    sbw::TerminalTab tab(
        session, [session] { return sbw::Expected<std::shared_ptr<sbw::GuestSession>>(session); },
        sbw::TerminalTab::Lifetime::Connection, QStringLiteral("bench"), QStringLiteral("cat"));
    tab.resize(1000, 700);
    tab.show();
    sbw::TerminalWidget* widget = tab.terminal();
    if (!waitFor([&] { return widget->screenText().contains(QLatin1Char('#')); }, 60000))
        fail(QStringLiteral("the shell showed no prompt"));
    // The last line lands just above the cursor (or on its row until the newline arrives):
    // looking at those rows after every burst costs far less than reading the whole screen.
    bool seen = false;
    QObject::connect(tab.shell(), &sbw::ShellChannel::output, &tab, [&] {
        const sbw::TerminalScreen& screen = widget->screen();
        const int cursorLine = screen.scrollbackCount() + screen.cursor().y();
        for (int line = std::max(0, cursorLine - 2); line <= cursorLine && !seen; ++line)
            seen = screen.lineText(line).startsWith(kLastLine);
    });
    QElapsedTimer sinceTick;
    qint64 longestTick = 0;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    QObject::connect(&probe, &QTimer::timeout, &tab,
                     [&] { longestTick = std::max(longestTick, sinceTick.restart()); });
    QElapsedTimer timer;
    timer.start();
    const qint64 cpuBefore = processCpuMs();
    sinceTick.start();
    probe.start(5);
    tab.shell()->write("cat " + kBigFile + "\r");
    if (!waitFor([&] { return seen; }, 600000))
        fail(QStringLiteral("the terminal never showed the file's last line"));
    const qint64 ms = timer.elapsed();
    probe.stop();
    cpuMs.push_back(processCpuMs() - cpuBefore);
    stallMs.push_back(longestTick);
    QFile::remove(tab.recordingPath());
    return ms;
}

/// Milliseconds from making a file tree of the folder until it is loaded completely.
qint64 treeListMs(const std::shared_ptr<sbw::SftpClient>& sftp)
{
    QElapsedTimer timer;
    timer.start();
    sbw::FileTreePane pane(sftp, kFolder);
    pane.resize(800, 600);
    pane.show();
    bool loaded = false;
    QObject::connect(pane.model(), &sbw::FileTreeModel::folderLoaded, &pane,
                     [&](const QByteArray& path) { loaded = loaded || path == kFolder; });
    if (pane.model()->canFetchMore({})) // unless the view asked already
        pane.model()->fetchMore({});
    if (!waitFor([&] { return loaded; }, 600000))
        fail(QStringLiteral("the tree never finished loading the folder"));
    const qint64 ms = timer.elapsed();
    if (pane.model()->rowCount() != kFolderEntries)
        fail(QStringLiteral("the tree shows %1 entries, not %2")
                 .arg(pane.model()->rowCount())
                 .arg(kFolderEntries));
    return ms;
}

/// The measurements on `workspace`, printed.
void measure(sbw::HypervisorConnection& connection, sbw::Workspace& workspace, int repetitions)
{
    if (auto started = workspace.start(); !started)
        fail(started.error().message);
    auto session = workspace.session(std::chrono::steady_clock::now() + 300s);
    if (!session)
        fail(session.error().message);

    // A 10 MB text file of numbered 100-byte lines ending in kLastLine, and the folder.
    guestRun(*session.value(), "mkdir -p " + kFolder + " && cd " + kFolder +
                                   " && seq -f 'f%05g' 1 " + QByteArray::number(kFolderEntries) +
                                   " | xargs touch && "
                                   "python3 -c \"import sys\n"
                                   "line = lambda i: ('line %07d ' % i).ljust(99, 'x') + '\\\\n'\n"
                                   "n = " +
                                   QByteArray::number(kFileBytes / 100 - 1) +
                                   "\n"
                                   "sys.stdout.write(''.join(line(i) for i in range(n)))\n"
                                   "sys.stdout.write('" +
                                   kLastLine.toUtf8() + "'.ljust(99, '-') + '\\\\n')\" > " +
                                   kBigFile);
    guestRun(*session.value(), "test $(stat -c %s " + kBigFile + ") -eq " +
                                   QByteArray::number(kFileBytes) + " && cat " + kBigFile +
                                   " > /dev/null");

    std::vector<qint64> catMs;
    std::vector<qint64> catCpuMs;
    std::vector<qint64> catStallMs;
    std::vector<qint64> listMs;
    {
        auto sftp = session.value()->openSftp();
        if (!sftp)
            fail(sftp.error().message);
        std::shared_ptr<sbw::SftpClient> client = std::move(sftp.value());
        for (int i = 0; i < repetitions; ++i) {
            catMs.push_back(terminalCatMs(session.value(), catCpuMs, catStallMs));
            listMs.push_back(treeListMs(client));
        }
    }
    const sbw::WorkspaceRecord& record = workspace.record();
    const auto socketPath =
        sbw::test::channelSocketPath(connection.handle(), record.domainName, record.sshPort);
    if (!socketPath)
        fail(socketPath.error().message);
    session.value().reset();
    workspace.closeSession();

    QTemporaryDir dir;
    const auto plain =
        sbw::test::PlainSshClient::create(socketPath.value(), record.hostKey, dir.path());
    if (!plain)
        fail(plain.error().message);
    const auto ms = [](const sbw::Expected<qint64>& measured) {
        if (!measured)
            fail(measured.error().message);
        return measured.value();
    };
    const QString cat = QStringLiteral("cat ") + QString::fromUtf8(kBigFile);
    std::vector<qint64> sshCatMs, sshPtyCatMs, sshConnectMs, sftpListMs, sftpConnectMs;
    for (int i = 0; i < repetitions; ++i) {
        sshConnectMs.push_back(ms(plain->sshMs(QStringLiteral("true"))));
        sshCatMs.push_back(ms(plain->sshMs(cat)));
        sshPtyCatMs.push_back(ms(plain->sshMs(cat, true)));
        sftpConnectMs.push_back(ms(plain->sftpMs("pwd\n")));
        sftpListMs.push_back(ms(plain->sftpMs("ls -1 " + kFolder + "\n")));
    }

    const qint64 tab = median(catMs), sshCat = median(sshCatMs), sshConnect = median(sshConnectMs);
    const qint64 sshPtyCat = median(sshPtyCatMs);
    const qint64 list = median(listMs), sftpList = median(sftpListMs),
                 sftpConnect = median(sftpConnectMs);
    const qint64 sshTransfer = std::max<qint64>(1, sshCat - sshConnect);
    const qint64 sftpTransfer = std::max<qint64>(1, sftpList - sftpConnect);
    std::printf("medians of %d, %s\n", repetitions,
                qPrintable(sbw::HypervisorConnection::describe(connection.accelerator())));
    std::printf("cat of a 10 MB text file:\n");
    std::printf("  terminal tab (until the last line shows):  %6lld ms  %6.2f MB/s"
                "  (workbench CPU time %lld ms; GUI event loop stalled at most %lld ms)\n",
                static_cast<long long>(tab), mbPerSecond(kFileBytes, tab),
                static_cast<long long>(median(catCpuMs)),
                static_cast<long long>(*std::max_element(catStallMs.begin(), catStallMs.end())));
    std::printf("  ssh ... cat > /dev/null:                    %6lld ms  %6.2f MB/s"
                "  (handshake %lld ms; without it %6.2f MB/s)\n",
                static_cast<long long>(sshCat), mbPerSecond(kFileBytes, sshCat),
                static_cast<long long>(sshConnect), mbPerSecond(kFileBytes, sshTransfer));
    std::printf("  ssh -tt ... cat > /dev/null (guest PTY):    %6lld ms  %6.2f MB/s"
                "  (without the handshake %6.2f MB/s)\n",
                static_cast<long long>(sshPtyCat), mbPerSecond(kFileBytes, sshPtyCat),
                mbPerSecond(kFileBytes, std::max<qint64>(1, sshPtyCat - sshConnect)));
    std::printf("  ratio terminal/ssh: %.2f; without the handshake: %.2f (target >= 0.5)\n",
                double(sshCat) / double(std::max<qint64>(1, tab)),
                double(sshTransfer) / double(std::max<qint64>(1, tab)));
    std::printf("list a folder of %d entries:\n", kFolderEntries);
    std::printf("  file tree (until loaded):                  %6lld ms\n",
                static_cast<long long>(list));
    std::printf("  sftp ls -1:                                %6lld ms  (handshake %lld ms; "
                "without it %lld ms)\n",
                static_cast<long long>(sftpList), static_cast<long long>(sftpConnect),
                static_cast<long long>(sftpTransfer));
    std::printf("  ratio (speed) tree/sftp: %.2f; without the handshake: %.2f (target >= 0.5)\n",
                double(sftpList) / double(std::max<qint64>(1, list)),
                double(sftpTransfer) / double(std::max<qint64>(1, list)));
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("sbw.*.info=false"));
    const int repetitions = argc > 1 ? std::max(1, atoi(argv[1])) : 3;

    sbw::HypervisorConnection connection(sbw::test::guestUri());
    return sbw::test::measureOnNewWorkspace(
        connection, QStringLiteral("bench-term"), "bench_terminal_files",
        [&](sbw::Workspace& workspace) { measure(connection, workspace, repetitions); });
}

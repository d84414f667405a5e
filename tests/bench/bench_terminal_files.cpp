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

#include "DataPaths.h"
#include "FileTreeModel.h"
#include "FileTreePane.h"
#include "GuestSession.h"
#include "HypervisorConnection.h"
#include "LibvirtEventLoop.h"
#include "ShellChannel.h"
#include "TerminalTab.h"
#include "TerminalWidget.h"
#include "TestEnvironment.h"
#include "Workspace.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QXmlStreamReader>

#include <libvirt/libvirt.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

using namespace std::chrono_literals;

constexpr qint64 kFileBytes = 10 * 1000 * 1000;
constexpr int kFolderEntries = 10000;
const QByteArray kBigFile = "/root/bench/big.txt";
const QByteArray kFolder = "/root/bench/many";
/// The file's last line; nothing typed contains it, so seeing it means the whole file arrived.
const QString kLastLine = QStringLiteral("THE-END-OF-BIG-TXT");

qint64 median(std::vector<qint64> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? -1 : values[values.size() / 2];
}

double mbPerSecond(qint64 bytes, qint64 ms)
{
    return ms > 0 ? double(bytes) / 1e6 / (double(ms) / 1000.0) : 0.0;
}

/// Ends the measurement; main() reports it and removes the workspace.
struct Failure
{
    QString what;
};

[[noreturn]] void fail(const QString& what)
{
    throw Failure{what};
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
    sbw::TerminalTab tab(session, QStringLiteral("bench"), QStringLiteral("cat"));
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
        fail(QStringLiteral("the tree shows %1 entries, not %2").arg(pane.model()->rowCount()).arg(kFolderEntries));
    return ms;
}

/// The host end of the domain's virtio-serial channel `port`, from its live XML.
QString channelSocketPath(virConnectPtr conn, const QString& domainName, const QString& port)
{
    virDomainPtr domain = virDomainLookupByName(conn, domainName.toUtf8().constData());
    if (!domain)
        fail(QStringLiteral("no domain %1").arg(domainName));
    char* xml = virDomainGetXMLDesc(domain, 0);
    virDomainFree(domain);
    QXmlStreamReader reader(QString::fromUtf8(xml));
    free(xml);
    QString path;
    QString candidate;
    while (!reader.atEnd()) {
        reader.readNext();
        if (!reader.isStartElement())
            continue;
        if (reader.name() == QLatin1String("channel"))
            candidate.clear();
        else if (reader.name() == QLatin1String("source"))
            candidate = reader.attributes().value(QLatin1String("path")).toString();
        else if (reader.name() == QLatin1String("target")
                 && reader.attributes().value(QLatin1String("name")) == port)
            path = candidate;
    }
    if (path.isEmpty())
        fail(QStringLiteral("no socket path for channel %1 in the XML of %2").arg(port, domainName));
    return path;
}

/// Plain OpenSSH clients through the channel's socket.
class PlainClient
{
public:
    PlainClient(const QString& socketPath, const QString& hostKey, const QString& dir)
        : m_dir(dir)
    {
        QFile knownHosts(dir + QStringLiteral("/known_hosts"));
        if (!knownHosts.open(QIODevice::WriteOnly))
            fail(QStringLiteral("cannot write %1").arg(knownHosts.fileName()));
        knownHosts.write("sandbox " + hostKey.section(QLatin1Char(' '), 0, 1).toUtf8() + "\n");
        m_options = {QStringLiteral("-F"), QStringLiteral("/dev/null"),
                     QStringLiteral("-i"), sbw::paths::dataDir() + QStringLiteral("/ssh/id_ed25519"),
                     QStringLiteral("-o"), QStringLiteral("ProxyCommand=socat - UNIX-CONNECT:") + socketPath,
                     QStringLiteral("-o"), QStringLiteral("UserKnownHostsFile=") + knownHosts.fileName(),
                     QStringLiteral("-o"), QStringLiteral("StrictHostKeyChecking=yes"),
                     QStringLiteral("-o"), QStringLiteral("HostKeyAlias=sandbox"),
                     QStringLiteral("-o"), QStringLiteral("IdentitiesOnly=yes"),
                     QStringLiteral("-o"), QStringLiteral("BatchMode=yes")};
    }

    /// Milliseconds of `ssh [-tt] root@sandbox COMMAND`, stdout discarded; `pty` asks for a
    /// pseudo-terminal in the guest, as a terminal tab has.
    qint64 sshMs(const QString& command, bool pty = false) const
    {
        QStringList arguments = m_options;
        if (pty)
            arguments.append(QStringLiteral("-tt"));
        return runMs(QStringLiteral("ssh"), arguments + QStringList{QStringLiteral("root@sandbox"), command});
    }

    /// Milliseconds of `sftp -b BATCH root@sandbox` with the batch `commands`, stdout discarded.
    qint64 sftpMs(const QByteArray& commands) const
    {
        QFile batch(m_dir + QStringLiteral("/batch"));
        if (!batch.open(QIODevice::WriteOnly) || batch.write(commands) != commands.size())
            fail(QStringLiteral("cannot write the sftp batch file"));
        batch.close();
        return runMs(QStringLiteral("sftp"),
                     m_options + QStringList{QStringLiteral("-b"), batch.fileName(), QStringLiteral("root@sandbox")});
    }

private:
    static qint64 runMs(const QString& program, const QStringList& arguments)
    {
        // The guest starts the next sshd on the port once the previous one has exited.
        QThread::msleep(500);
        QProcess process;
        process.setStandardOutputFile(QProcess::nullDevice());
        QElapsedTimer timer;
        timer.start();
        process.start(program, arguments);
        if (!process.waitForFinished(600000) || process.exitStatus() != QProcess::NormalExit
            || process.exitCode() != 0)
            fail(QStringLiteral("%1 failed (exit %2): %3")
                     .arg(program)
                     .arg(process.exitCode())
                     .arg(QString::fromLocal8Bit(process.readAllStandardError())));
        return timer.elapsed();
    }

    QString m_dir;
    QStringList m_options;
};

/// The measurements on `workspace`, printed.
void measure(sbw::HypervisorConnection& connection, sbw::Workspace& workspace, int repetitions)
{
    if (auto started = workspace.start(); !started)
        fail(started.error().message);
    auto session = workspace.session(std::chrono::steady_clock::now() + 300s);
    if (!session)
        fail(session.error().message);

    // A 10 MB text file of numbered 100-byte lines ending in kLastLine, and the folder.
    guestRun(*session.value(),
             "mkdir -p " + kFolder + " && cd " + kFolder + " && seq -f 'f%05g' 1 "
                 + QByteArray::number(kFolderEntries) + " | xargs touch && "
                 "python3 -c \"import sys\n"
                 "line = lambda i: ('line %07d ' % i).ljust(99, 'x') + '\\\\n'\n"
                 "n = " + QByteArray::number(kFileBytes / 100 - 1) + "\n"
                 "sys.stdout.write(''.join(line(i) for i in range(n)))\n"
                 "sys.stdout.write('" + kLastLine.toUtf8() + "'.ljust(99, '-') + '\\\\n')\" > " + kBigFile);
    guestRun(*session.value(), "test $(stat -c %s " + kBigFile + ") -eq " + QByteArray::number(kFileBytes)
                                   + " && cat " + kBigFile + " > /dev/null");

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
    const QString socketPath = channelSocketPath(connection.handle(), record.domainName, record.sshPort);
    session.value().reset();
    workspace.closeSession();

    QTemporaryDir dir;
    const PlainClient plain(socketPath, record.hostKey, dir.path());
    std::vector<qint64> sshCatMs, sshPtyCatMs, sshConnectMs, sftpListMs, sftpConnectMs;
    for (int i = 0; i < repetitions; ++i) {
        sshConnectMs.push_back(plain.sshMs(QStringLiteral("true")));
        sshCatMs.push_back(plain.sshMs(QStringLiteral("cat ") + QString::fromUtf8(kBigFile)));
        sshPtyCatMs.push_back(plain.sshMs(QStringLiteral("cat ") + QString::fromUtf8(kBigFile), true));
        sftpConnectMs.push_back(plain.sftpMs("pwd\n"));
        sftpListMs.push_back(plain.sftpMs("ls -1 " + kFolder + "\n"));
    }

    const qint64 cat = median(catMs), sshCat = median(sshCatMs), sshConnect = median(sshConnectMs);
    const qint64 sshPtyCat = median(sshPtyCatMs);
    const qint64 list = median(listMs), sftpList = median(sftpListMs), sftpConnect = median(sftpConnectMs);
    const qint64 sshTransfer = std::max<qint64>(1, sshCat - sshConnect);
    const qint64 sftpTransfer = std::max<qint64>(1, sftpList - sftpConnect);
    std::printf("medians of %d, %s\n", repetitions,
                qPrintable(sbw::HypervisorConnection::describe(connection.accelerator())));
    std::printf("cat of a 10 MB text file:\n");
    std::printf("  terminal tab (until the last line shows):  %6lld ms  %6.2f MB/s"
                "  (workbench CPU time %lld ms; GUI event loop stalled at most %lld ms)\n",
                static_cast<long long>(cat), mbPerSecond(kFileBytes, cat),
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
                double(sshCat) / double(std::max<qint64>(1, cat)),
                double(sshTransfer) / double(std::max<qint64>(1, cat)));
    std::printf("list a folder of %d entries:\n", kFolderEntries);
    std::printf("  file tree (until loaded):                  %6lld ms\n", static_cast<long long>(list));
    std::printf("  sftp ls -1:                                %6lld ms  (handshake %lld ms; without it %lld ms)\n",
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
    const QString name = QStringLiteral("bench-term-%1").arg(QCoreApplication::applicationPid());
    auto created = sbw::Workspace::create(connection, name, {});
    if (!created) {
        std::fprintf(stderr, "bench_terminal_files: %s\n", qPrintable(created.error().message));
        return 1;
    }
    int status = 0;
    try {
        measure(connection, *created.value(), repetitions);
    } catch (const Failure& failure) {
        std::fprintf(stderr, "bench_terminal_files: %s\n", qPrintable(failure.what));
        status = 1;
    }
    if (auto removed = created.value()->remove(); !removed) {
        std::fprintf(stderr, "cannot remove workspace %s: %s\n", qPrintable(name),
                     qPrintable(removed.error().message));
        status = 1;
    }
    return status;
}

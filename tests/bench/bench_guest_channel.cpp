// Guest channel figures on one booted sandbox: exec round trip (`true`, median of N), the same
// with a PTY shell open, and SFTP transfers of a 50 MiB random file next to the plain channel
// baseline in the same run (the same bytes through an exec's stdout and stdin).
//
//   build/tests/bench/bench_guest_channel [repetitions]

#include "BenchStats.h"
#include "ExecTiming.h"
#include "TestEnvironment.h"
#include "guest/GuestSession.h"
#include "guest/SftpClient.h"
#include "guest/ShellChannel.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "sandbox/Sandbox.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

constexpr qint64 kFileSize = 50 * 1024 * 1024;

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("sbw.*.info=false"));
    const int repetitions = argc > 1 ? std::max(1, atoi(argv[1])) : 20;

    sbw::HypervisorConnection connection(sbw::test::guestUri());
    auto sandbox = sbw::Sandbox::start(connection, {});
    if (!sandbox) {
        std::fprintf(stderr, "start failed: %s\n", qPrintable(sandbox.error().message));
        return 1;
    }
    if (auto ready = sandbox.value()->waitReady(nullptr); !ready) {
        std::fprintf(stderr, "boot failed: %s\n", qPrintable(ready.error().message));
        return 1;
    }
    sbw::GuestSession& session = sandbox.value()->session();
    sbw::test::medianExecMs(session, "true", 2); // warm up the guest's shell and page cache
    std::printf("exec round trip (true), median of %d:        %lld ms\n", repetitions,
                static_cast<long long>(sbw::test::medianExecMs(session, "true", repetitions)));
    {
        auto shell = session.openShell(80, 24);
        QElapsedTimer wait;
        wait.start();
        while (!shell->isOpen() && wait.elapsed() < 30000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        std::printf("exec round trip with an idle shell open:     %lld ms\n",
                    static_cast<long long>(sbw::test::medianExecMs(session, "true", repetitions)));
    }

    QTemporaryDir dir;
    QByteArray data(kFileSize, Qt::Uninitialized);
    QRandomGenerator(1).fillRange(reinterpret_cast<quint32*>(data.data()), data.size() / 4);
    const QString source = dir.filePath(QStringLiteral("up.bin"));
    const QString back = dir.filePath(QStringLiteral("down.bin"));
    {
        QFile file(source);
        if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size())
            return 1;
    }
    const QByteArray digest = QCryptographicHash::hash(data, QCryptographicHash::Sha256);

    // Baseline: the same bytes through one exec channel, each way.
    QElapsedTimer timer;
    sbw::ExecRequest push;
    push.command = "exec cat > /tmp/plain.bin";
    push.stdinData = data;
    timer.start();
    const bool pushed = session.exec(push).ok();
    const qint64 pushMs = timer.elapsed();
    QByteArray pulled;
    sbw::ExecRequest pull;
    pull.command = "exec cat /tmp/plain.bin";
    pull.onStdout = [&](QByteArrayView bytes) { pulled.append(bytes); };
    timer.start();
    session.exec(pull);
    const qint64 pullMs = timer.elapsed();

    auto sftp = session.openSftp();
    if (!sftp) {
        std::fprintf(stderr, "sftp failed: %s\n", qPrintable(sftp.error().message));
        return 1;
    }
    timer.start();
    const auto uploaded = sftp.value()->upload(source, "/tmp/sftp.bin");
    const qint64 uploadMs = timer.elapsed();
    timer.start();
    const auto downloaded = sftp.value()->download("/tmp/sftp.bin", back);
    const qint64 downloadMs = timer.elapsed();
    QFile backFile(back);
    backFile.open(QIODevice::ReadOnly);
    const bool exact =
        QCryptographicHash::hash(backFile.readAll(), QCryptographicHash::Sha256) == digest;

    std::printf("upload 50 MiB:   SFTP %6.1f MB/s%s   exec stdin  %6.1f MB/s%s\n",
                sbw::test::mbPerSecond(kFileSize, uploadMs), uploaded ? "" : " (failed)",
                sbw::test::mbPerSecond(kFileSize, pushMs), pushed ? "" : " (failed)");
    std::printf("download 50 MiB: SFTP %6.1f MB/s%s   exec stdout %6.1f MB/s%s\n",
                sbw::test::mbPerSecond(kFileSize, downloadMs),
                downloaded && exact ? "" : " (failed or not exact)", sbw::test::mbPerSecond(kFileSize, pullMs),
                QCryptographicHash::hash(pulled, QCryptographicHash::Sha256) == digest
                    ? ""
                    : " (not exact)");
    return 0;
}

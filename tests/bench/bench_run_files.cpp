// Input-file upload and artifact download speed of ephemeral runs, next to plain OpenSSH `sftp`
// through the same virtio-serial channel in the same run, on one booted guest (a workspace,
// whose domain has the same SSH port as a run's):
//   - upload: uploadInputFiles() of a 50 MiB random file into /root/run, as runEphemeral()
//     does before a script starts (SFTP channel open included); plain: `sftp -b` with `put`;
//   - download: collectArtifacts() of /root/run/out holding that file, as runEphemeral() does
//     after a script ended (SFTP channel open and the folder listing included); plain: `sftp
//     -b` with `get`.
// Every copy is checked byte for byte (SHA-256). The plain client connects through `socat -
// UNIX-CONNECT:<the channel's socket>` (path from the live domain XML) once the workbench's
// session is closed (the guest serves one SSH connection per port at a time); its time
// includes the SSH handshake, so the handshake alone (`sftp` with `pwd`) is measured too and
// the ratios are given against both.
//
//   build/tests/bench/bench_run_files [repetitions]   (default 3; medians)

#include "BenchSetup.h"
#include "BenchStats.h"
#include "BenchWorkspace.h"
#include "ChannelSocketPath.h"
#include "PlainSshClient.h"
#include "TestEnvironment.h"
#include "guest/GuestSession.h"
#include "guest/SftpClient.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "run/RunArtifacts.h"
#include "run/RunInputFiles.h"
#include "workspace/Workspace.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

using namespace std::chrono_literals;
using sbw::test::mbPerSecond;
using sbw::test::failBench;
using sbw::test::median;

constexpr qint64 kFileBytes = 50 * 1024 * 1024;

QByteArray fileDigest(const QString& path)
{
    QFile file(path);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!file.open(QIODevice::ReadOnly) || !hash.addData(&file))
        failBench(QStringLiteral("cannot read %1").arg(path));
    return hash.result().toHex();
}

/// Runs `command` in the guest and returns its stdout; fails the bench unless it exits 0.
QByteArray guestRun(sbw::GuestSession& session, const QByteArray& command)
{
    sbw::ExecRequest request;
    request.command = command;
    request.timeout = 300s;
    QByteArray out;
    request.onStdout = [&](QByteArrayView bytes) { out.append(bytes); };
    auto status = session.exec(request);
    if (!status || status->exitStatus != 0)
        failBench(QStringLiteral("guest command failed: %1").arg(QString::fromUtf8(command)));
    return out;
}

/// The value of `result`; fails the bench with its error otherwise.
template <typename T> T valueOrFail(sbw::Expected<T> result)
{
    if (!result)
        failBench(result.error().message);
    return std::move(result.value());
}

void measure(sbw::HypervisorConnection& connection, sbw::Workspace& workspace, int repetitions)
{
    if (auto started = workspace.start(); !started)
        failBench(started.error().message);
    auto session = workspace.session(std::chrono::steady_clock::now() + 300s);
    if (!session)
        failBench(session.error().message);

    QTemporaryDir dir;
    const QString source = dir.filePath(QStringLiteral("big.bin"));
    {
        QByteArray data(kFileBytes, Qt::Uninitialized);
        QRandomGenerator(5).fillRange(reinterpret_cast<quint32*>(data.data()), data.size() / 4);
        QFile file(source);
        if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size())
            failBench(QStringLiteral("cannot write %1").arg(source));
    }
    const QByteArray digest = fileDigest(source);
    auto inputs = sbw::checkInputFiles({source});
    if (!inputs)
        failBench(inputs.error().message);

    std::vector<qint64> uploadMs, downloadMs;
    for (int i = 0; i < repetitions; ++i) {
        guestRun(*session.value(), "rm -rf /root/run");
        QElapsedTimer timer;
        timer.start();
        {
            auto sftp = session.value()->openSftp();
            if (!sftp)
                failBench(sftp.error().message);
            if (auto uploaded = sbw::uploadInputFiles(*sftp.value(), inputs.value(), "/root/run"); !uploaded)
                failBench(uploaded.error().message);
        }
        uploadMs.push_back(timer.elapsed());
        const QByteArray guestDigest =
            guestRun(*session.value(), "mkdir -p /root/run/out && ln /root/run/big.bin /root/run/out/big.bin && "
                                       "sha256sum /root/run/big.bin | cut -d' ' -f1").trimmed();
        if (guestDigest != digest)
            failBench(QStringLiteral("the uploaded file differs: %1").arg(QString::fromLatin1(guestDigest)));

        const QString back = dir.filePath(QStringLiteral("back%1").arg(i));
        timer.start();
        sbw::ArtifactCollection collection;
        {
            auto sftp = session.value()->openSftp();
            if (!sftp)
                failBench(sftp.error().message);
            collection = sbw::collectArtifacts(*sftp.value(), "/root/run/out", back, {});
        }
        downloadMs.push_back(timer.elapsed());
        if (collection.artifacts.size() != 1 || fileDigest(collection.artifacts.first().hostPath) != digest)
            failBench(QStringLiteral("the artifact did not come back exact: %1").arg(collection.note));
        QFile::remove(collection.artifacts.first().hostPath);
    }

    const sbw::WorkspaceRecord& record = workspace.record();
    const QString socketPath =
        valueOrFail(sbw::test::channelSocketPath(connection.handle(), record.domainName, record.sshPort));
    session.value().reset();
    workspace.closeSession();

    const auto plain = valueOrFail(sbw::test::PlainSshClient::create(socketPath, record.hostKey, dir.path()));
    std::vector<qint64> putMs, getMs, connectMs;
    const QString got = dir.filePath(QStringLiteral("plain.bin"));
    for (int i = 0; i < repetitions; ++i) {
        connectMs.push_back(valueOrFail(plain.sftpMs("pwd\n")));
        putMs.push_back(valueOrFail(plain.sftpMs("put " + QFile::encodeName(source) + " /root/plain.bin\n")));
        getMs.push_back(valueOrFail(plain.sftpMs("get /root/plain.bin " + QFile::encodeName(got) + "\n")));
        if (fileDigest(got) != digest)
            failBench(QStringLiteral("plain sftp did not copy the file exactly"));
    }

    const qint64 up = median(uploadMs), down = median(downloadMs);
    const qint64 put = median(putMs), get = median(getMs), handshake = median(connectMs);
    const qint64 putOnly = std::max<qint64>(1, put - handshake), getOnly = std::max<qint64>(1, get - handshake);
    std::printf("medians of %d, %s, 50 MiB random file\n", repetitions,
                qPrintable(sbw::HypervisorConnection::describe(connection.accelerator())));
    std::printf("upload   workbench (uploadInputFiles)   %6lld ms %7.2f MB/s\n", static_cast<long long>(up),
                mbPerSecond(kFileBytes, up));
    std::printf("         sftp put                       %6lld ms %7.2f MB/s  (handshake %lld ms; without it %.2f MB/s)\n",
                static_cast<long long>(put), mbPerSecond(kFileBytes, put), static_cast<long long>(handshake),
                mbPerSecond(kFileBytes, putOnly));
    std::printf("         ratio workbench/sftp: %.2f; against sftp without its handshake: %.2f (target >= 0.8)\n",
                double(put) / double(std::max<qint64>(1, up)), double(putOnly) / double(std::max<qint64>(1, up)));
    std::printf("download workbench (collectArtifacts)   %6lld ms %7.2f MB/s\n", static_cast<long long>(down),
                mbPerSecond(kFileBytes, down));
    std::printf("         sftp get                       %6lld ms %7.2f MB/s  (without the handshake %.2f MB/s)\n",
                static_cast<long long>(get), mbPerSecond(kFileBytes, get), mbPerSecond(kFileBytes, getOnly));
    std::printf("         ratio workbench/sftp: %.2f; against sftp without its handshake: %.2f (target >= 0.8)\n",
                double(get) / double(std::max<qint64>(1, down)), double(getOnly) / double(std::max<qint64>(1, down)));
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    const int repetitions = sbw::test::benchRepetitions(argc, argv);

    sbw::HypervisorConnection connection(sbw::test::guestUri());
    return sbw::test::measureOnNewWorkspace(connection, QStringLiteral("bench-files"), "bench_run_files",
                                            [&](sbw::Workspace& workspace) { measure(connection, workspace, repetitions); });
}

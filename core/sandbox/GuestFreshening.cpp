#include "sandbox/GuestFreshening.h"

#include "guest/GuestSession.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QUuid>

#include <algorithm>
#include <chrono>

namespace sbw {
namespace {

constexpr qsizetype kSeedBytes = 64;

/// perl-base is in every image (Essential). 0x40085203 = RNDADDENTROPY (_IOW('R', 3, int[2])),
/// 0x5207 = RNDRESEEDCRNG (_IO('R', 7)), random(4); 227 = clock_settime, 165 = mount (4096 =
/// MS_BIND) on x86_64.
const char kScript[] = R"(
open(my $r, '+<', '/dev/urandom') or die "urandom: $!\n";
my $s = pack('H*', $ARGV[0]);
ioctl($r, 0x40085203, pack('ii', 8 * length($s), length($s)) . $s) or die "RNDADDENTROPY: $!\n";
ioctl($r, 0x5207, 0) or die "RNDRESEEDCRNG: $!\n";
my $now = pack('qq', $ARGV[1], $ARGV[2]);
syscall(227, 0, $now) == 0 or die "clock_settime: $!\n";
open(my $b, '>', '/run/sbw-boot-id') or die "boot id: $!\n";
print $b "$ARGV[3]\n";
close $b;
my ($source, $target) = ('/run/sbw-boot-id', '/proc/sys/kernel/random/boot_id'); # syscall() wants variables
syscall(165, $source, $target, 0, 4096, 0) == 0 or die "bind: $!\n";
)";

} // namespace

QByteArray freshenCommand(const QByteArray& seed, qint64 seconds, qint64 nanoseconds, const QString& bootId)
{
    // The script comes on stdin (ExecRequest::stdinData), so nothing of it is shell-quoted.
    return "perl - " + seed.toHex() + ' ' + QByteArray::number(seconds) + ' ' + QByteArray::number(nanoseconds) +
           ' ' + bootId.toLatin1();
}

Expected<void> freshenGuest(GuestSession& session)
{
    QByteArray seed(kSeedBytes, Qt::Uninitialized);
    QRandomGenerator::system()->generate(reinterpret_cast<quint32*>(seed.data()),
                                         reinterpret_cast<quint32*>(seed.data() + seed.size()));
    const qint64 nowNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    ExecRequest request;
    request.command = freshenCommand(seed, nowNs / 1000000000, nowNs % 1000000000,
                                     QUuid::createUuid().toString(QUuid::WithoutBraces));
    request.stdinData = kScript;
    request.timeout = std::chrono::seconds(60);
    QByteArray said; // appended on the session's thread while exec() blocks
    request.onStdout = [&](QByteArrayView bytes) { said += bytes.first(std::min<qsizetype>(bytes.size(), 4096)); };
    request.onStderr = request.onStdout;
    auto status = session.exec(request);
    if (!status)
        return makeError(QStringLiteral("cannot reseed the restored guest: %1").arg(status.error().message));
    if (status->exitStatus != 0 || !said.isEmpty())
        return makeError(QStringLiteral("cannot reseed the restored guest (exit %1): %2")
                             .arg(status->exitStatus ? QString::number(*status->exitStatus) : QStringLiteral("none"),
                                  QString::fromUtf8(said).trimmed()));
    return {};
}

} // namespace sbw

#include "CliStats.h"

#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "run/EphemeralRun.h"
#include "stats/StatsSampler.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <cstdio>

namespace sbw {
namespace {

QJsonValue number(const std::optional<double>& value, int decimals)
{
    if (!value)
        return QJsonValue::Null;
    const double scale = std::pow(10.0, decimals);
    return std::round(*value * scale) / scale;
}

QString cell(const std::optional<double>& value, double divisor = 1.0)
{
    return value ? QString::number(*value / divisor, 'f', 1) : QStringLiteral("-");
}

QString row(const QString& name, const QString& state, const QStringList& figures)
{
    QString line = name.leftJustified(32) + QLatin1Char(' ') + state.leftJustified(13);
    for (const QString& figure : figures)
        line += QLatin1Char(' ') + figure.rightJustified(11);
    return line.trimmed() + QLatin1Char('\n');
}

} // namespace

CliStats::CliStats(HypervisorConnection* connection, bool json, bool follow, QObject* parent)
    : QObject(parent), m_sampler(new StatsSampler(connection, std::chrono::seconds(1), this)),
      m_json(json), m_follow(follow)
{
    connect(m_sampler, &StatsSampler::sampled, this, &CliStats::onSampled);
    connect(m_sampler, &StatsSampler::samplingFailed, this, [](const QString& message) {
        std::fprintf(stderr, "sbw: error: %s\n", qPrintable(message));
        QCoreApplication::exit(RunResult::kWorkbenchError);
    });
    connect(&m_termination, &TerminationSignals::received, this, [] { QCoreApplication::exit(0); });
}

void CliStats::start()
{
    m_sampler->start();
}

void CliStats::onSampled(const StatsTick& tick)
{
    if (++m_ticks < 2)
        return;
    const QByteArray text = m_json ? json(tick) + '\n' : table(tick) + (m_follow ? "\n" : "");
    std::fwrite(text.constData(), 1, size_t(text.size()), stdout);
    std::fflush(stdout);
    if (!m_follow)
        QCoreApplication::exit(0);
}

QByteArray CliStats::table(const StatsTick& tick)
{
    QString out =
        row(QStringLiteral("NAME"), QStringLiteral("STATE"),
            {QStringLiteral("CPU %"), QStringLiteral("MEM MiB"), QStringLiteral("RSS MiB"), QStringLiteral("RD KiB/s"),
             QStringLiteral("WR KiB/s"), QStringLiteral("RX KiB/s"), QStringLiteral("TX KiB/s")});
    for (const SandboxSample& s : tick.sandboxes)
        out += row(s.name, domainStateName(s.state),
                   {cell(s.cpuPercent), cell(s.memoryUsedMiB), cell(s.residentMiB), cell(s.diskReadBytesPerSec, 1024),
                    cell(s.diskWriteBytesPerSec, 1024), cell(s.netRxBytesPerSec, 1024),
                    cell(s.netTxBytesPerSec, 1024)});
    const QString memory = tick.host.memoryUsedMiB && tick.host.memoryTotalMiB
                               ? QStringLiteral("%1/%2")
                                     .arg(qRound(*tick.host.memoryUsedMiB))
                                     .arg(qRound(*tick.host.memoryTotalMiB))
                               : QStringLiteral("-");
    // The host's RSS cell: all sandboxes together.
    out += row(QStringLiteral("(host)"), QString(), {cell(tick.host.cpuPercent), memory, cell(tick.host.sandboxesResidentMiB)});
    return out.toUtf8();
}

QByteArray CliStats::json(const StatsTick& tick)
{
    QJsonArray sandboxes;
    for (const SandboxSample& s : tick.sandboxes) {
        sandboxes.append(QJsonObject{
            {QStringLiteral("name"), s.name},
            {QStringLiteral("uuid"), s.uuid},
            {QStringLiteral("state"), domainStateName(s.state)},
            {QStringLiteral("vcpus"), s.vcpus},
            {QStringLiteral("cpu_percent"), number(s.cpuPercent, 2)},
            {QStringLiteral("memory_used_mib"), number(s.memoryUsedMiB, 2)},
            {QStringLiteral("memory_total_mib"), number(s.memoryTotalMiB, 2)},
            {QStringLiteral("resident_mib"), number(s.residentMiB, 2)},
            {QStringLiteral("disk_read_bytes_per_sec"), number(s.diskReadBytesPerSec, 0)},
            {QStringLiteral("disk_write_bytes_per_sec"), number(s.diskWriteBytesPerSec, 0)},
            {QStringLiteral("net_rx_bytes_per_sec"), number(s.netRxBytesPerSec, 0)},
            {QStringLiteral("net_tx_bytes_per_sec"), number(s.netTxBytesPerSec, 0)},
        });
    }
    const QJsonObject host{
        {QStringLiteral("cpu_percent"), number(tick.host.cpuPercent, 2)},
        {QStringLiteral("memory_used_mib"), number(tick.host.memoryUsedMiB, 1)},
        {QStringLiteral("memory_total_mib"), number(tick.host.memoryTotalMiB, 1)},
        {QStringLiteral("sandboxes_resident_mib"), number(tick.host.sandboxesResidentMiB, 1)},
        {QStringLiteral("ksm_merged_mib"), number(tick.host.mergedMiB, 1)},
    };
    const QJsonObject object{
        {QStringLiteral("time"),
         QDateTime::fromMSecsSinceEpoch(tick.timeMs, Qt::UTC).toString(Qt::ISODateWithMs)},
        {QStringLiteral("host"), host},
        {QStringLiteral("sandboxes"), sandboxes},
    };
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

int statsCommand(QStringList arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Prints CPU, memory, disk and network figures of the workbench's sandboxes and the host, "
        "sampled once a second. Without --follow it prints one table after two samples (a rate "
        "needs two)."));
    parser.addHelpOption();
    const QCommandLineOption json(
        QStringLiteral("json"), QStringLiteral("One JSON object per sample; units in key names."));
    const QCommandLineOption follow({QStringLiteral("f"), QStringLiteral("follow")},
                                    QStringLiteral("Keep printing every second until Ctrl-C."));
    const QCommandLineOption connectUri(
        QStringLiteral("connect"),
        QStringLiteral("libvirt URI (default: $LIBVIRT_DEFAULT_URI, else "
                       "qemu:///system for root, qemu:///session otherwise)."),
        QStringLiteral("URI"));
    parser.addOptions({json, follow, connectUri});
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "sbw: %s (see sbw stats --help)\n", qPrintable(parser.errorText()));
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QString help = parser.helpText();
        help.replace(arguments.constFirst(), QStringLiteral("sbw stats"));
        std::fputs(qPrintable(help), stdout);
        return 0;
    }
    if (!parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "sbw: stats takes no arguments (see sbw stats --help)\n");
        return 2;
    }
    HypervisorConnection connection(defaultConnectionUri(parser.value(connectUri)));
    CliStats stats(&connection, parser.isSet(json), parser.isSet(follow));
    stats.start();
    return QCoreApplication::exec();
}

} // namespace sbw

#include "LoopbackHttpServer.h"

#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <csignal>
#include <sys/prctl.h>

namespace sbw::test {
namespace {

/// A free TCP port on 127.0.0.1 (bound and released; the server that takes it starts at once).
quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

} // namespace

LoopbackHttpServers::~LoopbackHttpServers()
{
    for (QProcess* server : std::as_const(m_servers)) {
        server->kill();
        server->waitForFinished();
    }
}

quint16 LoopbackHttpServers::start(const QString& folder)
{
    const quint16 port = freePort();
    auto* server = new QProcess(this);
    server->setStandardOutputFile(QProcess::nullDevice());
    server->setStandardErrorFile(QProcess::nullDevice());
    server->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    server->start(QStringLiteral("python3"),
                  {QStringLiteral("-m"), QStringLiteral("http.server"), QStringLiteral("--bind"),
                   QStringLiteral("127.0.0.1"), QStringLiteral("--directory"), folder, QString::number(port)});
    m_servers.append(server);
    QTcpSocket probe;
    const bool up = QTest::qWaitFor(
        [&] {
            probe.abort();
            probe.connectToHost(QHostAddress::LocalHost, port);
            return probe.waitForConnected(200);
        },
        20000);
    return up ? port : 0;
}

PolicyRule networkRule(const QString& pattern, QList<quint16> ports, PolicyDecision decision)
{
    PolicyRule rule;
    rule.kinds = {ActionKind::Network};
    rule.pattern = pattern;
    rule.ports = std::move(ports);
    rule.decision = decision;
    return rule;
}

} // namespace sbw::test

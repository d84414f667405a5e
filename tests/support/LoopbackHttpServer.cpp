#include "LoopbackHttpServer.h"

#include "TestEnvironment.h"

#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <csignal>
#include <sys/prctl.h>

namespace sbw::test {
LoopbackHttpServers::~LoopbackHttpServers()
{
    for (QProcess* server : std::as_const(m_servers)) {
        server->kill();
        server->waitForFinished();
    }
}

quint16 LoopbackHttpServers::start(const QString& folder)
{
    const quint16 port = freeLoopbackPort();
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

bool writeSimpleIndex(const QString& root)
{
    const QString script = QStringLiteral(R"(
import base64, hashlib, os, sys, zipfile
root = sys.argv[1]
wheel = 'sbwdemo-1.0-py3-none-any.whl'
files = {
    'sbwdemo.py': 'GREETING = "hello from the allowed index"\n',
    'sbwdemo-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: sbwdemo\nVersion: 1.0\n',
    'sbwdemo-1.0.dist-info/WHEEL': 'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
}
record = []
for name, text in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()
    record.append(f'{name},sha256={digest},{len(text.encode())}')
record.append('sbwdemo-1.0.dist-info/RECORD,,')
files['sbwdemo-1.0.dist-info/RECORD'] = '\n'.join(record) + '\n'
os.makedirs(os.path.join(root, 'simple', 'sbwdemo'))
with zipfile.ZipFile(os.path.join(root, 'simple', 'sbwdemo', wheel), 'w') as z:
    for name, text in files.items():
        z.writestr(name, text)
with open(os.path.join(root, 'simple', 'sbwdemo', 'index.html'), 'w') as f:
    f.write(f'<html><body><a href="{wheel}">{wheel}</a></body></html>\n')
)");
    return QProcess::execute(QStringLiteral("python3"), {QStringLiteral("-c"), script, root}) == 0;
}

} // namespace sbw::test

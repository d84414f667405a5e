// The MCP server with a real client (the official TypeScript SDK, tests/mcp/client.mjs) over
// both transports: `sbw serve` (Streamable HTTP) and `sbw mcp` (stdio), on real guests. The
// policy allows everything but commands containing "forbidden", so the denied path is the real
// PolicyGate's. One workspace, made through create_workspace, serves every case; the last case
// asks a person for its exec calls through the core API (the window's gate, queue and pause in
// this process) to see the workspace paused while a call waits. Then: calls cancelled by the
// client (its AbortSignal) or by its going away (killed) over both transports, the output cap
// of a reply, and file paths resolved in the guest (symlinks, `..`) before the policy sees them.

#include "GatedMcpServer.h"
#include "McpSdkClient.h"
#include "TestEnvironment.h"
#include "approval/ApprovalPause.h"
#include "approval/ApprovalQueue.h"
#include "approval/PolicyGate.h"
#include "capacity/SandboxSlot.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "mcp/McpServer.h"
#include "mcp/McpTools.h"
#include "run/RunArtifacts.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceDomains.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <libvirt/libvirt.h>

namespace {

const QString kWorkspace = QStringLiteral("mcp-test");

const char kPolicy[] = R"({"version": 1, "default": [
  {"kinds": ["exec"], "pattern": "*forbidden*", "decision": "deny"},
  {"pattern": "*", "decision": "allow"}
]})";

/// Writes are allowed in /root only; everything else is allowed.
// Not a raw string: moc would read the "/*" in it as the start of a comment.
const char kRootWritesPolicy[] =
    "{\"version\": 1, \"default\": ["
    "{\"kinds\": [\"file-write\"], \"pattern\": \"/root/*\", \"decision\": \"allow\"},"
    "{\"kinds\": [\"file-write\"], \"decision\": \"deny\"},"
    "{\"decision\": \"allow\"}]}";

QJsonObject structured(const QJsonObject& result)
{
    return result.value(QLatin1String("structuredContent")).toObject();
}

QString text(const QJsonObject& result)
{
    return result.value(QLatin1String("content"))
        .toArray()
        .at(0)
        .toObject()
        .value(QLatin1String("text"))
        .toString();
}

QJsonObject call(const QString& tool, const QJsonObject& arguments)
{
    return {{QStringLiteral("call"), tool}, {QStringLiteral("arguments"), arguments}};
}

/// list_workspaces' entry for `name` in `result`; empty when it is not listed.
QJsonObject listedWorkspace(const QJsonObject& result, const QString& name)
{
    for (const QJsonValue& entry : structured(result).value(QLatin1String("workspaces")).toArray())
        if (entry.toObject().value(QLatin1String("name")).toString() == name)
            return entry.toObject();
    return {};
}

/// What list_workspaces shows of the test's workspace (made with 256 MiB, other settings
/// default, on the test's one host) in `state`.
QJsonObject workspaceEntry(const QString& state)
{
    return {{QStringLiteral("name"), kWorkspace},
            {QStringLiteral("state"), state},
            {QStringLiteral("memory_mib"), 256},
            {QStringLiteral("vcpus"), 1},
            {QStringLiteral("disk_gib"), 4},
            {QStringLiteral("network"), QStringLiteral("none")},
            {QStringLiteral("host"), sbw::test::guestUri()}};
}

/// list_files' entries in `result` by name. "modified" (the guest's clock) is dropped when it
/// is a valid ISO 8601 time, so that a comparison shows a bad one.
QMap<QString, QJsonObject> listedFiles(const QJsonObject& result)
{
    QMap<QString, QJsonObject> entries;
    for (const QJsonValue& value : structured(result).value(QLatin1String("entries")).toArray()) {
        QJsonObject entry = value.toObject();
        if (QDateTime::fromString(entry.value(QLatin1String("modified")).toString(), Qt::ISODate)
                .isValid())
            entry.remove(QStringLiteral("modified"));
        entries.insert(entry.value(QLatin1String("name")).toString(), entry);
    }
    return entries;
}

/// A list_files entry as listedFiles() keeps it.
QJsonObject fileEntry(const QString& name, const QString& type, qint64 size, const QString& mode)
{
    return {{QStringLiteral("name"), name},
            {QStringLiteral("type"), type},
            {QStringLiteral("size"), size},
            {QStringLiteral("mode"), mode}};
}

} // namespace

class TestMcp : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    QProcess m_serve;
    quint16 m_port = 0;
    QByteArray m_token;
    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Workspace> m_guest;
    std::shared_ptr<sbw::CommandLog> m_log;

    QString policyPath() const { return m_data.filePath(QStringLiteral("policy.json")); }
    QString rootWritesPolicyPath() const
    {
        return m_data.filePath(QStringLiteral("root-writes.json"));
    }

    /// Runs `shell` in the test's workspace through a session of this process; returns its
    /// exit status (-1 when it could not run) and stdout.
    std::pair<int, QByteArray> guest(const QByteArray& shell)
    {
        if (!m_guest) {
            auto opened = sbw::Workspace::open(*m_connection, kWorkspace);
            if (!opened)
                return {-1, opened.error().message.toUtf8()};
            m_guest = std::move(opened.value());
        }
        QByteArray out;
        sbw::ExecRequest request;
        request.command = shell;
        request.timeout = std::chrono::seconds(60);
        request.onStdout = [&out](QByteArrayView bytes) { out.append(bytes); };
        auto status =
            m_guest->exec(request, std::chrono::steady_clock::now() + std::chrono::seconds(120));
        return {status ? status->exitStatus.value_or(-1) : -1, out};
    }

    /// Whether a `sleep 60` runs in the guest (the bracket keeps pgrep from matching its shell).
    bool guestSleeps() { return guest("pgrep -f 'sleep [6]0'").first == 0; }

    sbw::CommandLog& log()
    {
        if (!m_log)
            m_log = sbw::CommandLog::open(
                        m_data.filePath(QStringLiteral("sandbox-workbench/command-log.sqlite")))
                        .value();
        return *m_log;
    }

    /// The newest agent row whose command is `command`, once it ended (none within 60 s: empty).
    std::optional<sbw::ActionRecord> endedRow(const QString& command)
    {
        std::optional<sbw::ActionRecord> found;
        (void)QTest::qWaitFor(
            [&] {
                sbw::LogFilter filter;
                filter.actor = sbw::Actor::Kind::Agent;
                const auto rows = log().rows(filter);
                if (!rows)
                    return false;
                for (const sbw::ActionRecord& row : rows.value())
                    if (row.command == command) {
                        if (row.outcome != sbw::Outcome::Running)
                            found = row;
                        return found.has_value();
                    }
                return false;
            },
            60000);
        return found;
    }

    /// Runs the SDK client with `config` plus `steps`; returns its JSON lines after the first
    /// (the server's info), one per step.
    QList<QJsonObject> client(const QJsonObject& config, const QJsonArray& steps)
    {
        return sbw::test::runSdkClient(QStringLiteral(SBW_MCP_CLIENT_DIR), config, steps);
    }

    QJsonObject http() const
    {
        return {{QStringLiteral("transport"), QStringLiteral("http")},
                {QStringLiteral("url"), QStringLiteral("http://127.0.0.1:%1/mcp").arg(m_port)},
                {QStringLiteral("token"), QString::fromLatin1(m_token)}};
    }

    QJsonObject stdio() const
    {
        return {{QStringLiteral("transport"), QStringLiteral("stdio")},
                {QStringLiteral("command"), QStringLiteral(SBW_CLI_PATH)},
                {QStringLiteral("args"),
                 QJsonArray{QStringLiteral("mcp"), QStringLiteral("--policy"), policyPath()}}};
    }

    /// Status of a POST of an initialize request to the HTTP endpoint with `headers`.
    int post(const QList<std::pair<QByteArray, QByteArray>>& headers)
    {
        QNetworkAccessManager network;
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(m_port)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        for (const auto& [name, value] : headers)
            request.setRawHeader(name, value);
        QNetworkReply* reply = network.post(
            request,
            QByteArray(
                R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}})"));
        (void)QTest::qWaitFor([reply] { return reply->isFinished(); }, 10000);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        delete reply;
        return status;
    }

    void removeWorkspace()
    {
        if (auto old = sbw::Workspace::open(*m_connection, kWorkspace))
            QVERIFY(old.value()->remove().ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(QStringLiteral(
                     SBW_MCP_CLIENT_DIR "/node_modules/@modelcontextprotocol/sdk/package.json")),
                 "the MCP SDK is not installed: run `npm ci --prefix tests/mcp` "
                 "(packaging/setup.sh does)");
        // Own key, records, log, token and policy; the images stay in the shared cache.
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        // One run's microVM at a time for every server of the test, so that a test holding the
        // only place sees a run queue (queuedRunReportsProgress).
        qputenv("SBW_MAX_SANDBOXES", "1");
        QFile policy(policyPath());
        QVERIFY(policy.open(QIODevice::WriteOnly));
        policy.write(kPolicy);
        policy.close();
        QFile rootWrites(rootWritesPolicyPath());
        QVERIFY(rootWrites.open(QIODevice::WriteOnly));
        rootWrites.write(kRootWritesPolicy);
        rootWrites.close();
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        removeWorkspace();

        m_serve.start(QStringLiteral(SBW_CLI_PATH),
                      {QStringLiteral("serve"), QStringLiteral("--port"), QStringLiteral("0"),
                       QStringLiteral("--policy"), policyPath()});
        QVERIFY(m_serve.waitForStarted());
        const QRegularExpression listening(QStringLiteral("http://127.0.0.1:(\\d+)/mcp"));
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT((err += m_serve.readAllStandardError(),
                                  listening.match(QString::fromUtf8(err)).hasMatch()),
                                 10000);
        m_port = quint16(listening.match(QString::fromUtf8(err)).captured(1).toUInt());
        QFile token(m_data.filePath(QStringLiteral("sandbox-workbench/mcp-token")));
        QVERIFY(token.open(QIODevice::ReadOnly));
        m_token = token.readAll().trimmed();
        QCOMPARE(token.permissions() & (QFile::ReadGroup | QFile::ReadOther), QFile::Permissions());
    }

    void cleanupTestCase()
    {
        m_guest.reset();
        m_serve.terminate();
        m_serve.waitForFinished(10000);
        if (m_connection)
            removeWorkspace();
    }

    void httpRefusesWithoutTokenAndForeignOrigins()
    {
        const QByteArray bearer = "Bearer " + m_token;
        QCOMPARE(post({}), 401);
        QCOMPARE(post({{"Authorization", "Bearer wrong"}}), 401);
        QCOMPARE(post({{"Authorization", bearer}, {"Origin", "http://evil.example"}}), 403);
        QCOMPARE(post({{"Authorization", bearer}}), 200);
    }

    void httpWorkspaceTools()
    {
        const QByteArray content = "héllo\n\tbytes \x01 as written\n";
        const QList<QJsonObject> results = client(
            http(),
            {QJsonObject{{QStringLiteral("list"), true}},
             call(QStringLiteral("list_workspaces"), {}),
             call(QStringLiteral("create_workspace"),
                  {{QStringLiteral("name"), kWorkspace}, {QStringLiteral("memory_mib"), 256}}),
             call(QStringLiteral("exec"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("argv"),
                    QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"),
                               QStringLiteral("echo out; echo err >&2; exit 3")}}}),
             call(QStringLiteral("exec"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("command"), QStringLiteral("pwd; echo \"$GREETING\"")},
                   {QStringLiteral("cwd"), QStringLiteral("/tmp")},
                   {QStringLiteral("env"),
                    QJsonObject{{QStringLiteral("GREETING"), QStringLiteral("hi there")}}}}),
             call(QStringLiteral("write_file"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("path"), QStringLiteral("/root/note.txt")},
                   {QStringLiteral("content"), QString::fromUtf8(content)}}),
             call(QStringLiteral("read_file"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("path"), QStringLiteral("/root/note.txt")}}),
             call(QStringLiteral("list_files"), {{QStringLiteral("workspace"), kWorkspace}}),
             call(QStringLiteral("exec"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("command"),
                    QStringLiteral("mkdir -p listing/sub && printf 12345 > listing/five.txt && "
                                   ": > listing/empty && ln -s five.txt listing/link")}}),
             call(QStringLiteral("list_files"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("path"), QStringLiteral("/root/listing")}}),
             call(QStringLiteral("exec"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("command"), QStringLiteral("echo forbidden")}}),
             call(QStringLiteral("exec"),
                  {{QStringLiteral("workspace"), QStringLiteral("no-such-ws")},
                   {QStringLiteral("command"), QStringLiteral("true")}}),
             call(QStringLiteral("exec"), {{QStringLiteral("workspace"), kWorkspace},
                                           {QStringLiteral("command"), QStringLiteral("sleep 30")},
                                           {QStringLiteral("timeout"), 1}}),
             call(QStringLiteral("list_workspaces"), {})});
        QCOMPARE(results.size(), 14);

        QCOMPARE(results[0].value(QLatin1String("tools")).toArray(),
                 QJsonArray::fromStringList({"run_code", "list_workspaces", "create_workspace",
                                             "exec", "read_file", "write_file", "list_files", "browser_navigate", "browser_back", "browser_text", "browser_screenshot", "browser_click", "browser_type", "browser_key",
                                             "pause", "resume", "checkpoint", "fork_workspace", "network_activity"}));
        QVERIFY2(!results[1].value(QLatin1String("isError")).toBool(),
                 qPrintable(text(results[1])));
        QCOMPARE(listedWorkspace(results[1], kWorkspace), QJsonObject());
        QVERIFY2(!results[2].value(QLatin1String("isError")).toBool(),
                 qPrintable(text(results[2])));
        // create_workspace returns once the domain boots; the guest agent is not up yet.
        QCOMPARE(structured(results[2]),
                 (QJsonObject{{QStringLiteral("workspace"), kWorkspace},
                              {QStringLiteral("state"), QStringLiteral("starting")}}));

        const QJsonObject status = structured(results[3]);
        QVERIFY2(!results[3].value(QLatin1String("isError")).toBool(),
                 qPrintable(text(results[3])));
        QCOMPARE(status.value(QLatin1String("stdout")).toString(), QStringLiteral("out\n"));
        QCOMPARE(status.value(QLatin1String("stderr")).toString(), QStringLiteral("err\n"));
        QCOMPARE(status.value(QLatin1String("exit_status")).toInt(), 3);
        QVERIFY(status.value(QLatin1String("signal")).isNull());
        QCOMPARE(structured(results[4]).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("/tmp\nhi there\n"));

        QCOMPARE(structured(results[5]).value(QLatin1String("size")).toInt(), content.size());
        const QJsonObject read = structured(results[6]);
        QCOMPARE(read.value(QLatin1String("encoding")).toString(), QStringLiteral("utf-8"));
        QCOMPARE(read.value(QLatin1String("content")).toString().toUtf8(), content);

        // list_files: /root by default, then a folder with one entry of each kind.
        QVERIFY2(!results[7].value(QLatin1String("isError")).toBool(),
                 qPrintable(text(results[7])));
        QCOMPARE(structured(results[7]).value(QLatin1String("path")).toString(),
                 QStringLiteral("/root"));
        const QMap<QString, QJsonObject> root = listedFiles(results[7]);
        QCOMPARE(root.value(QStringLiteral("note.txt")),
                 fileEntry(QStringLiteral("note.txt"), QStringLiteral("file"), content.size(),
                           QStringLiteral("0644")));
        QCOMPARE(structured(results[8]).value(QLatin1String("exit_status")).toInt(), 0);
        QVERIFY2(!results[9].value(QLatin1String("isError")).toBool(),
                 qPrintable(text(results[9])));
        QCOMPARE(structured(results[9]).value(QLatin1String("path")).toString(),
                 QStringLiteral("/root/listing"));
        QMap<QString, QJsonObject> listing = listedFiles(results[9]);
        QCOMPARE(listing.keys(), QStringList({"empty", "five.txt", "link", "sub"}));
        QCOMPARE(
            listing[QStringLiteral("empty")],
            fileEntry(QStringLiteral("empty"), QStringLiteral("file"), 0, QStringLiteral("0644")));
        QCOMPARE(listing[QStringLiteral("five.txt")],
                 fileEntry(QStringLiteral("five.txt"), QStringLiteral("file"), 5,
                           QStringLiteral("0644")));
        // A symlink is listed, not followed: its size is that of its target's name.
        QCOMPARE(listing[QStringLiteral("link")],
                 fileEntry(QStringLiteral("link"), QStringLiteral("symlink"), 8,
                           QStringLiteral("0777")));
        QJsonObject sub = listing[QStringLiteral("sub")];
        sub.remove(QStringLiteral("size")); // the file system's
        QCOMPARE(sub, (QJsonObject{{QStringLiteral("name"), QStringLiteral("sub")},
                                   {QStringLiteral("type"), QStringLiteral("directory")},
                                   {QStringLiteral("mode"), QStringLiteral("0755")}}));

        QCOMPARE(results[10].value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(text(results[10]), QStringLiteral("denied: denied by policy rule 1 (exec \"*forbidden*\"): echo forbidden"));
        QCOMPARE(results[11].value(QLatin1String("isError")).toBool(), true);
        QVERIFY2(text(results[11]).contains(QLatin1String("no-such-ws")),
                 qPrintable(text(results[11])));
        QCOMPARE(results[12].value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(text(results[12]), QStringLiteral("timed out after 1 s: the command was killed"));
        QCOMPARE(structured(results[12]).value(QLatin1String("timed_out")).toBool(), true);
        QVERIFY2(!results[13].value(QLatin1String("isError")).toBool(),
                 qPrintable(text(results[13])));
        QCOMPARE(listedWorkspace(results[13], kWorkspace),
                 workspaceEntry(QStringLiteral("running")));
    }

    /// The agent sends a CSV and a binary file; the script reads them and writes out/result.txt,
    /// out/plot.png (a PNG made with plain Python) and a copy of the binary; the client gets
    /// every byte back. A bad file name is a tool error before any microVM starts.
    void httpRunsCodeWithFiles()
    {
        const QByteArray sales = "region,amount\nnorth,120\nsouth,75\neast,200\n";
        QByteArray seed;
        for (int i = 0; i < 256; ++i)
            seed.append(char(i));
        const QString script = QStringLiteral(R"py(import csv, shutil, struct, zlib
rows = list(csv.DictReader(open("sales.csv")))
total = sum(int(row["amount"]) for row in rows)
with open("out/result.txt", "w") as result:
    result.write(f"{len(rows)} rows, total {total}\n")
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
pixels = b"\0" + bytes(int(row["amount"]) for row in rows)
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", len(rows), 1, 8, 0, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(pixels, 0)) + chunk(b"IEND", b""))
open("out/plot.png", "wb").write(png)
shutil.copy("seed.bin", "out/seed-copy.bin")
print(total)
)py");
        // What the script writes: a 3 × 1 grayscale PNG of the amounts (stored, not deflated).
        const QByteArray png =
            QByteArray::fromBase64("iVBORw0KGgoAAAANSUhEUgAAAAMAAAABCAAAAAA+"
                                   "i0toAAAAD0lEQVR4AQEEAPv/AHhLyALKAYy9HrmEAAAAAElFTkSuQmCC");
        const QByteArray resultText = "3 rows, total 395\n";
        const QJsonArray files{
            QJsonObject{{QStringLiteral("path"), QStringLiteral("sales.csv")},
                        {QStringLiteral("text"), QString::fromUtf8(sales)}},
            QJsonObject{{QStringLiteral("path"), QStringLiteral("seed.bin")},
                        {QStringLiteral("content_base64"), QString::fromLatin1(seed.toBase64())}}};
        const QList<QJsonObject> results = client(
            http(),
            {QJsonObject{
                 {QStringLiteral("list"), true}}, // so that the SDK checks the output schema
             call(QStringLiteral("run_code"),
                  {{QStringLiteral("code"), script}, {QStringLiteral("files"), files}}),
             call(QStringLiteral("run_code"),
                  {{QStringLiteral("code"), QStringLiteral("print(1)")},
                   {QStringLiteral("files"),
                    QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("../x")},
                                           {QStringLiteral("text"), QStringLiteral("x")}}}}})});
        QCOMPARE(results.size(), 3);
        const QJsonObject run = results[1];
        QVERIFY2(!run.value(QLatin1String("isError")).toBool() &&
                     !run.contains(QLatin1String("error")),
                 QJsonDocument(run).toJson().constData());
        QCOMPARE(structured(run).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("395\n"));
        QCOMPARE(structured(run).value(QLatin1String("exit_status")).toInt(), 0);
        QCOMPARE(structured(run).value(QLatin1String("artifacts_note")).toString(), QString());
        QCOMPARE(structured(run).value(QLatin1String("queued_ms")).toInt(-1), 0); // nothing else ran

        // Each artifact's URI names the run's microVM, so that resources/read finds it later.
        const QJsonArray artifacts = structured(run).value(QLatin1String("artifacts")).toArray();
        QCOMPARE(artifacts.size(), 3);
        const QRegularExpression uriPattern(
            QStringLiteral("^sbw://runs/(sbw-run-\\d{8}-\\d{6}-[0-9a-f]{4})/out/plot\\.png$"));
        const QString runName =
            uriPattern.match(artifacts[0].toObject().value(QLatin1String("uri")).toString())
                .captured(1);
        QVERIFY2(!runName.isEmpty(),
                 qPrintable(artifacts[0].toObject().value(QLatin1String("uri")).toString()));
        const auto uri = [&](const QString& path) {
            return QStringLiteral("sbw://runs/%1/%2").arg(runName, path);
        };
        const auto entry = [&](const QString& path, const QByteArray& bytes, const QString& mime) {
            return QJsonObject{
                {QStringLiteral("path"), path},
                {QStringLiteral("size_bytes"), bytes.size()},
                {QStringLiteral("sha256"),
                 QString::fromLatin1(
                     QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex())},
                {QStringLiteral("mime_type"), mime},
                {QStringLiteral("inline"), true},
                {QStringLiteral("uri"), uri(path)}};
        };
        QCOMPARE(artifacts[0].toObject(),
                 entry(QStringLiteral("out/plot.png"), png, QStringLiteral("image/png")));
        QCOMPARE(artifacts[1].toObject(),
                 entry(QStringLiteral("out/result.txt"), resultText, QStringLiteral("text/plain")));
        QCOMPARE(artifacts[2].toObject(), entry(QStringLiteral("out/seed-copy.bin"), seed,
                                                QStringLiteral("application/octet-stream")));

        // The text block with the structured JSON, then one block per artifact in the same order.
        const QJsonArray content = run.value(QLatin1String("content")).toArray();
        QCOMPARE(content.size(), 4);
        QCOMPARE(content[0].toObject().value(QLatin1String("type")).toString(),
                 QStringLiteral("text"));
        const QJsonObject image = content[1].toObject();
        QCOMPARE(image.value(QLatin1String("type")).toString(), QStringLiteral("image"));
        QCOMPARE(image.value(QLatin1String("mimeType")).toString(), QStringLiteral("image/png"));
        QCOMPARE(QByteArray::fromBase64(image.value(QLatin1String("data")).toString().toLatin1()),
                 png);
        QCOMPARE(content[2].toObject().value(QLatin1String("type")).toString(),
                 QStringLiteral("resource"));
        const QJsonObject textFile =
            content[2].toObject().value(QLatin1String("resource")).toObject();
        QCOMPARE(textFile.value(QLatin1String("uri")).toString(),
                 uri(QStringLiteral("out/result.txt")));
        QCOMPARE(textFile.value(QLatin1String("mimeType")).toString(),
                 QStringLiteral("text/plain"));
        QCOMPARE(textFile.value(QLatin1String("text")).toString().toUtf8(), resultText);
        const QJsonObject blob = content[3].toObject().value(QLatin1String("resource")).toObject();
        QCOMPARE(blob.value(QLatin1String("uri")).toString(),
                 uri(QStringLiteral("out/seed-copy.bin")));
        QCOMPARE(QByteArray::fromBase64(blob.value(QLatin1String("blob")).toString().toLatin1()),
                 seed);

        QCOMPARE(results[2].value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(text(results[2]), QStringLiteral("bad arguments: input file ../x must be a plain "
                                                  "file name (no folders, no . or ..)"));

        // Another client of the same server lists the run's files and reads them back.
        const QList<QJsonObject> resources =
            client(http(),
                   {QJsonObject{{QStringLiteral("resources"), true}},
                    QJsonObject{{QStringLiteral("read"), uri(QStringLiteral("out/result.txt"))}},
                    QJsonObject{{QStringLiteral("read"), uri(QStringLiteral("out/seed-copy.bin"))}},
                    QJsonObject{{QStringLiteral("read"),
                                 QStringLiteral("sbw://runs/sbw-run-none/out/x")}}});
        QCOMPARE(resources.size(), 4);
        const QJsonArray listed = resources[0].value(QLatin1String("resources")).toArray();
        QCOMPARE(listed.size(), 3);
        QCOMPARE(listed[1].toObject(),
                 (QJsonObject{{QStringLiteral("uri"), uri(QStringLiteral("out/result.txt"))},
                              {QStringLiteral("name"), QStringLiteral("out/result.txt")},
                              {QStringLiteral("description"),
                               QStringLiteral("written by run_code in the microVM ") + runName},
                              {QStringLiteral("mimeType"), QStringLiteral("text/plain")},
                              {QStringLiteral("size"), resultText.size()}}));
        QCOMPARE(
            resources[1].value(QLatin1String("contents")).toArray(),
            (QJsonArray{QJsonObject{{QStringLiteral("uri"), uri(QStringLiteral("out/result.txt"))},
                                    {QStringLiteral("mimeType"), QStringLiteral("text/plain")},
                                    {QStringLiteral("text"), QString::fromUtf8(resultText)}}}));
        const QJsonObject seedBack =
            resources[2].value(QLatin1String("contents")).toArray().at(0).toObject();
        QCOMPARE(
            QByteArray::fromBase64(seedBack.value(QLatin1String("blob")).toString().toLatin1()),
            seed);
        QCOMPARE(resources[3].value(QLatin1String("code")).toInt(), -32002);
        QVERIFY2(resources[3]
                     .value(QLatin1String("error"))
                     .toString()
                     .contains(QLatin1String("Resource not found")),
                 qPrintable(resources[3].value(QLatin1String("error")).toString()));
    }

    void stdioRunsCodeAndExec()
    {
        const QList<QJsonObject> results = client(
            stdio(),
            {QJsonObject{{QStringLiteral("list"), true}},
             call(QStringLiteral("run_code"),
                  {{QStringLiteral("language"), QStringLiteral("python")},
                   {QStringLiteral("code"), QStringLiteral("print(6*7)")}}),
             call(QStringLiteral("exec"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("argv"),
                    QJsonArray{QStringLiteral("cat"), QStringLiteral("/root/note.txt")}}}),
             call(QStringLiteral("pause"), {{QStringLiteral("workspace"), kWorkspace}}),
             call(QStringLiteral("list_workspaces"), {}),
             call(QStringLiteral("resume"), {{QStringLiteral("workspace"), kWorkspace}}),
             call(QStringLiteral("checkpoint"), {{QStringLiteral("workspace"), kWorkspace},
                                                 {QStringLiteral("name"), QStringLiteral("c1")}}),
             call(QStringLiteral("exec"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("argv"),
                    QJsonArray{QStringLiteral("echo"), QStringLiteral("forbidden")}}})});
        QCOMPARE(results.size(), 8);
        QCOMPARE(results[0].value(QLatin1String("tools")).toArray().size(), 19);
        QVERIFY2(!results[1].value(QLatin1String("isError")).toBool(),
                 qPrintable(text(results[1])));
        QCOMPARE(structured(results[1]).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("42\n"));
        QCOMPARE(structured(results[2]).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("héllo\n\tbytes \x01 as written\n"));
        QCOMPARE(structured(results[3]),
                 (QJsonObject{{QStringLiteral("workspace"), kWorkspace},
                              {QStringLiteral("state"), QStringLiteral("paused")}}));
        QCOMPARE(listedWorkspace(results[4], kWorkspace), workspaceEntry(QStringLiteral("paused")));
        QCOMPARE(structured(results[5]),
                 (QJsonObject{{QStringLiteral("workspace"), kWorkspace},
                              {QStringLiteral("state"), QStringLiteral("running")}}));
        QVERIFY2(!results[6].value(QLatin1String("isError")).toBool(),
                 qPrintable(text(results[6])));
        const QJsonObject checkpoint = structured(results[6]);
        QCOMPARE(checkpoint.value(QLatin1String("workspace")).toString(), kWorkspace);
        QCOMPARE(checkpoint.value(QLatin1String("checkpoint")).toString(), QStringLiteral("c1"));
        const QDateTime created = QDateTime::fromString(
            checkpoint.value(QLatin1String("created")).toString(), Qt::ISODate);
        QVERIFY2(created.isValid() && qAbs(created.secsTo(QDateTime::currentDateTimeUtc())) < 600,
                 qPrintable(checkpoint.value(QLatin1String("created")).toString()));
        QCOMPARE(text(results[7]), QStringLiteral("denied: denied by policy rule 1 (exec \"*forbidden*\"): echo forbidden"));
    }

    void everyCallIsALogRow()
    {
        auto log = sbw::CommandLog::open(
            m_data.filePath(QStringLiteral("sandbox-workbench/command-log.sqlite")));
        QVERIFY(log.ok());
        sbw::LogFilter filter;
        filter.actor = sbw::Actor::Kind::Agent;
        const auto rows = log.value()->rows(filter);
        QVERIFY(rows.ok());
        int denied = 0;
        int runs = 0;
        int runsWithFiles = 0;
        int withVariables = 0;
        QStringList lifecycle;
        QStringList listings;
        for (const sbw::ActionRecord& row : rows.value()) {
            QCOMPARE(row.actor.display(), QStringLiteral("agent (sbw-test-client)"));
            // Oldest first: "create mcp-test", "list /root", ...
            const QString summary = sbw::actionKindName(row.kind) + QLatin1Char(' ') +
                                    (row.command.isEmpty() ? row.sandbox : row.command) +
                                    QLatin1Char(' ') + sbw::outcomeName(row.outcome);
            if (row.kind == sbw::ActionKind::Create || row.kind == sbw::ActionKind::Pause ||
                row.kind == sbw::ActionKind::Resume || row.kind == sbw::ActionKind::Checkpoint)
                lifecycle.prepend(summary);
            if (row.kind == sbw::ActionKind::List)
                listings.prepend(summary);
            if (row.kind == sbw::ActionKind::Exec &&
                row.command.contains(QLatin1String("GREETING"))) {
                ++withVariables; // the variables it set come first, as the policy matched them
                QCOMPARE(row.command, QStringLiteral("GREETING=hi there pwd; echo \"$GREETING\""));
            }
            if (row.kind == sbw::ActionKind::Exec && row.outcome == sbw::Outcome::Denied) {
                ++denied;
                QCOMPARE(row.error, QStringLiteral("denied by policy rule 1 (exec \"*forbidden*\"): echo forbidden"));
            }
            if (row.kind == sbw::ActionKind::Run && row.outcome == sbw::Outcome::Succeeded &&
                row.command == QLatin1String("print(6*7)")) {
                ++runs;
                QCOMPARE(row.stdoutBytes, 3);
            } else if (row.kind == sbw::ActionKind::Run && row.outcome == sbw::Outcome::Succeeded) {
                ++runsWithFiles;
                QVERIFY2(row.command.endsWith(
                             QLatin1String("print(total)\n# input files: sales.csv, seed.bin")),
                         qPrintable(row.command));
                QCOMPARE(row.stdoutBytes, 4);
                QCOMPARE(sbw::artifactsIn(row.artifactsDir).size(), 3);
            }
        }
        QCOMPARE(lifecycle, QStringList({"create mcp-test succeeded", "pause mcp-test succeeded",
                                         "resume mcp-test succeeded", "checkpoint c1 succeeded"}));
        // list_workspaces has neither workspace nor command; list_files logs the folder.
        QCOMPARE(listings, QStringList({"list  succeeded", "list /root succeeded",
                                        "list /root/listing succeeded", "list  succeeded",
                                        "list  succeeded"}));
        QCOMPARE(denied, 2);
        QCOMPARE(runs, 1);
        QCOMPARE(runsWithFiles, 1);
        QCOMPARE(withVariables, 1);
    }

    /// An exec of `sleep 60` that the client cancels (its AbortSignal: the SDK sends
    /// notifications/cancelled) or abandons (the client is killed: stdin ends, or the HTTP
    /// connection drops) once it runs in the guest: the guest process is killed, the client gets
    /// no result, and the row says cancelled and by whom.
    void cancelledExecStopsInTheGuest_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::addColumn<bool>("kill");
        QTest::addColumn<QString>("error");
        const QString cancelled = QStringLiteral(
            "cancelled by the client (agent sbw-test-client): the test cancelled it");
        QTest::newRow("http-cancelled") << "http" << false << cancelled;
        QTest::newRow("stdio-cancelled") << "stdio" << false << cancelled;
        QTest::newRow("http-killed")
            << "http" << true
            << "cancelled: the client (agent sbw-test-client) went away: its HTTP connection "
               "closed before the answer";
        QTest::newRow("stdio-killed") << "stdio" << true
                                      << "cancelled: the client (agent sbw-test-client) went away: "
                                         "it closed its input (stdin)";
    }

    void cancelledExecStopsInTheGuest()
    {
        QFETCH(QString, transport);
        QFETCH(bool, kill);
        QFETCH(QString, error);
        QVERIFY(!guestSleeps());
        const QString tag = QString::fromLatin1(QTest::currentDataTag());
        QTemporaryDir dir;
        const QString go = dir.filePath(QStringLiteral("go"));
        QJsonObject step = call(
            QStringLiteral("exec"),
            {{QStringLiteral("workspace"), kWorkspace},
             {QStringLiteral("argv"), QJsonArray{QStringLiteral("sleep"), QStringLiteral("60")}},
             {QStringLiteral("env"), QJsonObject{{QStringLiteral("CASE"), tag}}}});
        step.insert(kill ? QStringLiteral("hang") : QStringLiteral("cancelWhen"),
                    kill ? QJsonValue(true) : QJsonValue(go));
        QJsonObject config = transport == QLatin1String("http") ? http() : stdio();
        config.insert(QStringLiteral("steps"), QJsonArray{step});
        QProcess node;
        node.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        node.start(QStringLiteral("node"),
                   {QStringLiteral(SBW_MCP_CLIENT_DIR "/client.mjs"),
                    QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Compact))});
        QTRY_VERIFY_WITH_TIMEOUT(guestSleeps(), 120000);
        QElapsedTimer clock;
        clock.start();
        if (kill) {
            node.kill();
        } else {
            QFile file(go);
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        QTRY_VERIFY_WITH_TIMEOUT(!guestSleeps(), 20000);
        qInfo("%s: the guest's sleep was gone %lld ms after the cancel", qPrintable(tag),
              clock.elapsed());
        QTRY_COMPARE_WITH_TIMEOUT(node.state(), QProcess::NotRunning, 30000); // killed, or done
        if (!kill) {
            const QList<QByteArray> lines = node.readAllStandardOutput().trimmed().split('\n');
            QCOMPARE(lines.size(), 2); // the server's info, the step
            const QJsonObject outcome = QJsonDocument::fromJson(lines.last()).object();
            QVERIFY2(outcome.contains(QLatin1String("cancelled")), lines.last().constData());
            QCOMPARE(outcome.value(QLatin1String("late")).toInt(), 0); // no result for it, 2 s on
        }
        const auto row = endedRow(QStringLiteral("CASE=%1 sleep 60").arg(tag));
        QVERIFY(row);
        QCOMPARE(row->outcome, sbw::Outcome::Cancelled);
        QCOMPARE(row->error, error);
        QVERIFY2(row->durationMs < 60000, qPrintable(QString::number(row->durationMs)));
    }

    /// A run_code call cancelled by the client while it runs: its microVM is destroyed, the
    /// client gets no result, the row says cancelled and by whom.
    void cancelledRunDestroysItsMicroVm()
    {
        const QStringList before = sbw::test::runDomains(sbw::test::guestUri());
        QTemporaryDir dir;
        const QString go = dir.filePath(QStringLiteral("go"));
        QJsonObject step = call(
            QStringLiteral("run_code"),
            {{QStringLiteral("code"),
              QStringLiteral("import time\nprint('cancel me', flush=True)\ntime.sleep(60)\n")}});
        step.insert(QStringLiteral("cancelWhen"), go);
        QProcess node;
        sbw::test::startSdkClient(node, QStringLiteral(SBW_MCP_CLIENT_DIR), http(), {step});
        QTRY_VERIFY_WITH_TIMEOUT(sbw::test::runDomains(sbw::test::guestUri()).size() > before.size(), 60000);
        QTest::qWait(3000); // booting or running: either way the run stops
        QFile file(go);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(node.waitForFinished(60000));
        QTRY_COMPARE_WITH_TIMEOUT(sbw::test::runDomains(sbw::test::guestUri()), before, 30000);
        const QList<QByteArray> lines = node.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const QJsonObject outcome = QJsonDocument::fromJson(lines.last()).object();
        QVERIFY2(outcome.contains(QLatin1String("cancelled")), lines.last().constData());
        QCOMPARE(outcome.value(QLatin1String("late")).toInt(), 0);
        const auto row = endedRow(
            QStringLiteral("import time\nprint('cancel me', flush=True)\ntime.sleep(60)\n"));
        QVERIFY(row);
        QCOMPARE(row->kind, sbw::ActionKind::Run);
        QCOMPARE(row->outcome, sbw::Outcome::Cancelled);
        QCOMPARE(row->error,
                 QStringLiteral(
                     "cancelled by the client (agent sbw-test-client): the test cancelled it"));
        QVERIFY2(row->durationMs < 60000, qPrintable(QString::number(row->durationMs)));
    }

    void queuedRunReportsProgress_data()
    {
        QTest::addColumn<QJsonObject>("transport");
        QTest::newRow("http") << http();
        QTest::newRow("stdio") << stdio();
    }

    /// A run_code that asked for progress and waits for a place (the test holds the only one)
    /// is told its place, then each phase, as notifications/progress (over HTTP in an SSE
    /// stream), and its result is exact once the place is free.
    void queuedRunReportsProgress()
    {
        QFETCH(QJsonObject, transport);
        auto held = sbw::SandboxSlot::acquire(1, {}, nullptr);
        QVERIFY2(held.ok(), held ? "" : qPrintable(held.error().message));
        std::optional<sbw::SandboxSlot> place(std::move(held.value()));
        QJsonObject step = call(QStringLiteral("run_code"), {{QStringLiteral("code"), QStringLiteral("print(6*7)")}});
        step.insert(QStringLiteral("progress"), true);
        QProcess node;
        sbw::test::startSdkClient(node, QStringLiteral(SBW_MCP_CLIENT_DIR), transport, {step});
        QList<QJsonObject> lines;
        QStringList messages;
        QList<int> counts;
        const auto read = [&] {
            while (node.canReadLine()) {
                lines.append(QJsonDocument::fromJson(node.readLine()).object());
                const QJsonObject progress = lines.last().value(QLatin1String("progress")).toObject();
                if (!progress.isEmpty()) {
                    counts.append(progress.value(QLatin1String("progress")).toInt());
                    messages.append(progress.value(QLatin1String("message")).toString());
                }
            }
        };
        const QString queued = QStringLiteral("queued: next; waiting for the running microVM to end");
        QTRY_VERIFY_WITH_TIMEOUT((read(), messages.contains(queued)), 60000);
        place.reset();
        QVERIFY(node.waitForFinished(300000));
        read();
        // The first run of this test's key saves the ready state first (run alone, this case is).
        QStringList expected{QStringLiteral("connecting"), queued, QStringLiteral("preparing"),
                             QStringLiteral("restoring the saved microVM"), QStringLiteral("running"),
                             QStringLiteral("cleaning up")};
        const QString saving = QStringLiteral("saving a ready microVM for this image (once)");
        if (messages.value(3) == saving)
            expected.insert(3, saving);
        QCOMPARE(messages, expected);
        QList<int> numbers;
        for (int i = 1; i <= expected.size(); ++i)
            numbers.append(i);
        QCOMPARE(counts, numbers);
        QCOMPARE(lines.size(), 1 + expected.size() + 1); // the server's info, the progress, the result
        QVERIFY2(!lines.last().value(QLatin1String("isError")).toBool(), qPrintable(text(lines.last())));
        QCOMPARE(structured(lines.last()).value(QLatin1String("stdout")).toString(), QStringLiteral("42\n"));
        QVERIFY(structured(lines.last()).value(QLatin1String("queued_ms")).toInt() > 0);
    }

    /// An output bigger than a reply's cap (1 MiB a stream): the reply holds 1 MiB of it once
    /// (structuredContent; the text block points there), with a note naming the cap and the
    /// row; the row and `sbw log --output` have all of it.
    void bigOutputIsCappedOnce()
    {
        const qint64 size = 3000000;
        const QList<QJsonObject> results = client(
            http(), {QJsonObject{{QStringLiteral("list"), true}},
                     call(QStringLiteral("exec"),
                          {{QStringLiteral("workspace"), kWorkspace},
                           {QStringLiteral("command"),
                            QStringLiteral("head -c %1 /dev/zero | tr '\\0' a; echo done >&2")
                                .arg(size)}})});
        QCOMPARE(results.size(), 2);
        const QJsonObject result = results[1];
        QVERIFY2(!result.value(QLatin1String("isError")).toBool(), qPrintable(text(result)));
        const QJsonObject out = structured(result);
        QCOMPARE(out.value(QLatin1String("stdout")).toString(), QString(1 << 20, QLatin1Char('a')));
        QCOMPARE(out.value(QLatin1String("stdout_bytes")).toInteger(), size);
        QCOMPARE(out.value(QLatin1String("stderr")).toString(), QStringLiteral("done\n"));
        const QRegularExpression note(
            QStringLiteral("^stdout has 3000000 bytes; this reply holds its first 1048576 \\(the "
                           "cap is 1048576 bytes a stream\\); the "
                           "whole of it is in row (\\d+) of the command log: sbw log --output "
                           "(\\d+) --stream stdout$"));
        const auto match = note.match(out.value(QLatin1String("output_note")).toString());
        QVERIFY2(match.hasMatch(), qPrintable(out.value(QLatin1String("output_note")).toString()));
        QCOMPARE(match.captured(1), match.captured(2));
        QVERIFY2(!text(result).contains(QLatin1String("aaaa")) && text(result).size() < 2048,
                 qPrintable(text(result).left(2048)));
        const qint64 replySize = QJsonDocument(result).toJson(QJsonDocument::Compact).size();
        qInfo("reply of a %lld-byte stdout: %lld bytes", size, replySize);
        QVERIFY2(replySize < (1 << 20) + 4096, qPrintable(QString::number(replySize)));

        const qint64 id = match.captured(1).toLongLong();
        const auto whole = log().output(id, sbw::OutputStream::Stdout);
        QVERIFY(whole.ok());
        QCOMPARE(whole->size(), size);
        QProcess cli;
        cli.start(QStringLiteral(SBW_CLI_PATH),
                  {QStringLiteral("log"), QStringLiteral("--output"), QString::number(id),
                   QStringLiteral("--stream"), QStringLiteral("stdout")});
        QVERIFY(cli.waitForFinished(30000));
        QCOMPARE(cli.exitCode(), 0);
        QCOMPARE(cli.readAllStandardOutput(), QByteArray(size, 'a'));
    }

    /// File paths are resolved in the guest before the policy sees them: with /root/link → /etc,
    /// write_file /root/link/x is a write of /etc/x, which "allow /root/*" does not allow; `.`,
    /// `..` and repeated slashes are normalised; the row shows the resolved path.
    void filePathsAreResolvedInTheGuest()
    {
        QCOMPARE(
            guest("rm -rf /root/link /root/d /root/y.txt && mkdir /root/d && ln -s /etc /root/link")
                .first,
            0);
        QJsonObject config = stdio();
        config.insert(
            QStringLiteral("args"),
            QJsonArray{QStringLiteral("mcp"), QStringLiteral("--policy"), rootWritesPolicyPath()});
        const auto write = [](const QString& path) {
            return call(QStringLiteral("write_file"),
                        {{QStringLiteral("workspace"), kWorkspace},
                         {QStringLiteral("path"), path},
                         {QStringLiteral("content"), QStringLiteral("x\n")}});
        };
        const QList<QJsonObject> results = client(
            config,
            {write(QStringLiteral("/root/link/x")), write(QStringLiteral("/root/d/.././/y.txt")),
             call(QStringLiteral("read_file"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("path"), QStringLiteral("/root/link/hostname")}}),
             call(QStringLiteral("list_files"),
                  {{QStringLiteral("workspace"), kWorkspace},
                   {QStringLiteral("path"), QStringLiteral("/root/link/../root/d/")}})});
        QCOMPARE(results.size(), 4);
        QCOMPARE(results[0].value(QLatin1String("isError")).toBool(), true);
        QVERIFY2(text(results[0]).startsWith(QLatin1String("denied: ")),
                 qPrintable(text(results[0])));
        QCOMPARE(guest("test -e /etc/x").first, 1);
        QVERIFY2(!results[1].value(QLatin1String("isError")).toBool(),
                 qPrintable(text(results[1])));
        QCOMPARE(structured(results[1]).value(QLatin1String("path")).toString(),
                 QStringLiteral("/root/y.txt"));
        QCOMPARE(guest("cat /root/y.txt"), (std::pair<int, QByteArray>(0, "x\n")));
        QCOMPARE(structured(results[2]).value(QLatin1String("path")).toString(),
                 QStringLiteral("/etc/hostname"));
        // link/.. is the parent of /etc (the kernel's `..`, after the symlink), not /root.
        QCOMPARE(structured(results[3]).value(QLatin1String("path")).toString(),
                 QStringLiteral("/root/d"));

        const auto denied = endedRow(QStringLiteral("/etc/x"));
        QVERIFY(denied);
        QCOMPARE(denied->kind, sbw::ActionKind::FileWrite);
        QCOMPARE(denied->outcome, sbw::Outcome::Denied);
        const auto written = endedRow(QStringLiteral("/root/y.txt"));
        QVERIFY(written);
        QCOMPARE(written->outcome, sbw::Outcome::Succeeded);
        QVERIFY(endedRow(QStringLiteral("/etc/hostname")));
    }

    /// pauseWhileWaiting: the workspace's domain is paused while an asked exec waits, and runs
    /// again before the approved command does; a timed-out call resumes it too; a workspace the
    /// person paused stays paused after the decision. The pauses and resumes are log rows of
    /// the workbench's approval queue.
    void waitingCallPausesItsWorkspace()
    {
        auto log = sbw::CommandLog::open(m_data.filePath(QStringLiteral("approval-log.sqlite")));
        QVERIFY(log.ok());
        auto policy = sbw::Policy::parse(
            R"({"version": 1, "workspaces": {"mcp-test": {"pauseWhileWaiting": true,
            "rules": [{"kinds": ["exec"], "decision": "ask"}, {"decision": "allow"}]}}})",
            QStringLiteral("policy"));
        QVERIFY(policy.ok());
        sbw::test::GatedMcpServer mcp(m_connection.get(), policy.value(), log.value());
        sbw::ApprovalPause pause(m_connection.get(), log.value());
        mcp.gate.setApprovalPause(&pause);
        mcp.initialize(QStringLiteral("pauser"));
        QVERIFY(mcp.answer);
        const auto exec = [&](const QString& shell) {
            mcp.send(1, QStringLiteral("tools/call"),
                 {{QStringLiteral("name"), QStringLiteral("exec")},
                  {QStringLiteral("arguments"),
                   QJsonObject{{QStringLiteral("workspace"), kWorkspace},
                               {QStringLiteral("argv"),
                                QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), shell}}}}});
        };
        auto domain = sbw::lookupWorkspaceDomain(m_connection->handle(), kWorkspace);
        QVERIFY(domain.ok());
        const auto domainState = [&] {
            int state = VIR_DOMAIN_NOSTATE;
            int reason = 0;
            virDomainGetState(domain.value().get(), &state, &reason, 0);
            return state;
        };
        QCOMPARE(domainState(), int(VIR_DOMAIN_RUNNING));

        // Approved: paused while it waits, running again before the command runs.
        exec(QStringLiteral("echo approved; cat /proc/uptime >/dev/null"));
        QTRY_COMPARE_WITH_TIMEOUT(mcp.queue.pending().size(), 1, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(domainState(), int(VIR_DOMAIN_PAUSED), 10000);
        // The pause's worker reports to the pause's thread after libvirt paused the domain.
        QTRY_VERIFY_WITH_TIMEOUT(pause.holdsPaused(kWorkspace), 10000);
        QTest::qWait(300);
        QVERIFY(!mcp.answer);
        QCOMPARE(domainState(), int(VIR_DOMAIN_PAUSED));
        QElapsedTimer sinceApproval;
        sinceApproval.start();
        QVERIFY(mcp.queue.approve(mcp.queue.pending().at(0).id, QStringLiteral("alice")));
        QTRY_VERIFY_WITH_TIMEOUT(mcp.answer.has_value(), 120000);
        qInfo("approved exec answered %lld ms after the approval (resume and command)",
              sinceApproval.elapsed());
        QCOMPARE(domainState(), int(VIR_DOMAIN_RUNNING));
        QVERIFY2(!mcp.answer->value(QLatin1String("isError")).toBool(),
                 QJsonDocument(*mcp.answer).toJson().constData());
        QCOMPARE(structured(*mcp.answer).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("approved\n"));
        QCOMPARE(structured(*mcp.answer).value(QLatin1String("exit_status")).toInt(), 0);
        QVERIFY(!pause.holdsPaused(kWorkspace));

        // Timed out: resumed as well; the agent reads the reason.
        mcp.queue.setTimeout(std::chrono::seconds(3));
        exec(QStringLiteral("echo late"));
        QTRY_COMPARE_WITH_TIMEOUT(domainState(), int(VIR_DOMAIN_PAUSED), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(mcp.answer.has_value(), 20000);
        QCOMPARE(text(*mcp.answer), QStringLiteral("denied: not approved within 3 s"));
        QCOMPARE(domainState(), int(VIR_DOMAIN_RUNNING));

        // Paused by the person before the call: still paused after the denial.
        auto workspace = sbw::Workspace::open(*m_connection, kWorkspace);
        QVERIFY(workspace.ok());
        QVERIFY(workspace.value()->pause().ok());
        mcp.queue.setTimeout(std::chrono::minutes(5));
        exec(QStringLiteral("echo never"));
        QTRY_COMPARE_WITH_TIMEOUT(mcp.queue.pending().size(), 1, 5000);
        QTest::qWait(500);
        QVERIFY(!pause.holdsPaused(kWorkspace));
        QVERIFY(mcp.queue.deny(mcp.queue.pending().at(0).id, QStringLiteral("alice"),
                           QStringLiteral("not now")));
        QTRY_VERIFY_WITH_TIMEOUT(mcp.answer.has_value(), 10000);
        QCOMPARE(text(*mcp.answer), QStringLiteral("denied: not now"));
        QTest::qWait(500);
        QCOMPARE(domainState(), int(VIR_DOMAIN_PAUSED));
        QVERIFY(workspace.value()->resume().ok());

        // The log: the workbench paused and resumed twice, the resume ended before the
        // approved command started.
        sbw::LogFilter filter;
        filter.actor = sbw::Actor::Kind::Workbench;
        const auto rows = log.value()->rows(filter);
        QVERIFY(rows.ok());
        QStringList story;
        for (const sbw::ActionRecord& row : rows.value()) // newest first
            story.prepend(QStringLiteral("%1 %2 %3 %4")
                              .arg(row.actor.display(), sbw::actionKindName(row.kind), row.sandbox,
                                   sbw::outcomeName(row.outcome)));
        const QString paused =
            QStringLiteral("workbench (approval queue) pause mcp-test succeeded");
        const QString resumed =
            QStringLiteral("workbench (approval queue) resume mcp-test succeeded");
        QCOMPARE(story, QStringList({paused, resumed, paused, resumed}));
        for (const sbw::ActionRecord& row : rows.value())
            qInfo("%s took %lld ms", qPrintable(sbw::actionKindName(row.kind)), row.durationMs);
        sbw::LogFilter execs;
        execs.actor = sbw::Actor::Kind::Agent;
        const auto agentRows = log.value()->rows(execs);
        QVERIFY(agentRows.ok());
        const auto approved =
            std::find_if(agentRows->cbegin(), agentRows->cend(), [](const sbw::ActionRecord& row) {
                return row.kind == sbw::ActionKind::Exec && row.outcome == sbw::Outcome::Succeeded;
            });
        QVERIFY(approved != agentRows->cend());
        QCOMPARE(approved->approval, sbw::Approval::Approved);
        QCOMPARE(approved->approver, QStringLiteral("alice"));
        const sbw::ActionRecord& firstResume =
            rows->at(2); // newest first: resume, pause, resume, pause
        QCOMPARE(firstResume.kind, sbw::ActionKind::Resume);
        QVERIFY2(firstResume.ended <= approved->started,
                 qPrintable(firstResume.ended.toString(Qt::ISODateWithMs) + QLatin1Char(' ') +
                            approved->started.toString(Qt::ISODateWithMs)));
    }

    /// The approver sees the resolved path; a symlink swapped in while the call waits is found
    /// when the call runs, and the write is refused with nothing written. A call withdrawn by
    /// its client leaves the queue.
    void swappedSymlinkIsRefused()
    {
        QCOMPARE(guest("rm -rf /root/swap /etc/f && mkdir /root/swap").first, 0);
        auto log = sbw::CommandLog::open(m_data.filePath(QStringLiteral("swap-log.sqlite")));
        QVERIFY(log.ok());
        auto policy = sbw::Policy::parse(
            R"({"version": 1, "default": [{"kinds": ["file-write"], "decision": "ask"},
            {"decision": "allow"}]})",
            QStringLiteral("policy"));
        QVERIFY(policy.ok());
        sbw::test::GatedMcpServer mcp(m_connection.get(), policy.value(), log.value());
        mcp.initialize(QStringLiteral("swapper"));
        QVERIFY(mcp.answer);
        const auto write = [&](int id, const QString& path) {
            mcp.send(id, QStringLiteral("tools/call"),
                 {{QStringLiteral("name"), QStringLiteral("write_file")},
                  {QStringLiteral("arguments"),
                   QJsonObject{{QStringLiteral("workspace"), kWorkspace},
                               {QStringLiteral("path"), path},
                               {QStringLiteral("content"), QStringLiteral("evil\n")}}}});
        };
        write(2, QStringLiteral("/root/swap/./f"));
        QTRY_COMPARE_WITH_TIMEOUT(mcp.queue.pending().size(), 1, 60000);
        QCOMPARE(mcp.queue.pending().at(0).request.path, QStringLiteral("/root/swap/f"));
        QCOMPARE(guest("rmdir /root/swap && ln -s /etc /root/swap").first, 0);
        QVERIFY(mcp.queue.approve(mcp.queue.pending().at(0).id, QStringLiteral("alice")));
        QTRY_VERIFY_WITH_TIMEOUT(mcp.answer.has_value(), 60000);
        QCOMPARE(mcp.answer->value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(text(*mcp.answer),
                 QStringLiteral(
                     "refused: /root/swap/f was approved, but it now leads to /etc/f (a symlink "
                     "changed in between); nothing was written"));
        QCOMPARE(guest("test -e /etc/f").first, 1);

        // Cancelled while it waits: out of the mcp.queue, never answered, never written.
        write(3, QStringLiteral("/root/later"));
        QTRY_COMPARE_WITH_TIMEOUT(mcp.queue.pending().size(), 1, 60000);
        mcp.server.handle(
            mcp.session,
            QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("method"), QStringLiteral("notifications/cancelled")},
                        {QStringLiteral("params"), QJsonObject{{QStringLiteral("requestId"), 3}}}},
            [](const QJsonObject&) {});
        QVERIFY(mcp.queue.pending().isEmpty());
        QTest::qWait(1000);
        QVERIFY(!mcp.answer);
        QCOMPARE(guest("test -e /root/later").first, 1);
        sbw::LogFilter filter;
        filter.text = QStringLiteral("/root/later");
        const auto rows = log.value()->rows(filter);
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 1); // the policy mcp.gate's: it never ran
        QCOMPARE(rows->at(0).outcome, sbw::Outcome::Cancelled);
        QCOMPARE(rows->at(0).error, QStringLiteral("cancelled by the client (agent swapper)"));
        QCOMPARE(guest("rm /root/swap").first, 0);
    }
};

QTEST_GUILESS_MAIN(TestMcp)
#include "tst_mcp.moc"

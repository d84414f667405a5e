// run_code's files without a guest: the `files` argument (shapes, names, caps, decoding), what
// the approval request and the command-log row say about them, and how a run's artifacts
// become structuredContent entries and MCP content blocks.

#include "action/ActionGate.h"
#include "log/CommandLog.h"
#include "mcp/McpRunFiles.h"
#include "mcp/McpServer.h"
#include "mcp/McpTools.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace sbw;

namespace {

/// Allows every call and remembers what it was asked.
class RecordingGate : public ActionGate
{
public:
    void decide(const ActionRequest& request, Done done) override
    {
        asked.append(request);
        done(GateDecision{true, Approval::Auto, {}, {}, {}});
    }
    QList<ActionRequest> asked;
};

QJsonObject file(const QString& path, const char* key, const QJsonValue& value)
{
    return {{QStringLiteral("path"), path}, {QLatin1String(key), value}};
}

QJsonObject textFile(const QString& path, const QString& text)
{
    return file(path, "text", text);
}

QString base64(const QByteArray& bytes)
{
    return QString::fromLatin1(bytes.toBase64());
}

QString sha256(const QByteArray& bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

const QByteArray kPng = QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + QByteArray(40, '\x01');

} // namespace

class TestMcpRunFiles : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    void writeFile(const QString& path, const QByteArray& bytes)
    {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        QCOMPARE(out.write(bytes), bytes.size());
    }

private Q_SLOTS:
    void filesDecodeToTheirBytes()
    {
        const QByteArray binary("\x00\xff\x89PNG\r\n", 8);
        auto files = mcp::parseRunInputFiles(QJsonArray{
            file(QStringLiteral("data.csv"), "text", QStringLiteral("a,b\n1,héllo\n")),
            file(QStringLiteral("blob.bin"), "content_base64", base64(binary)),
            // Line breaks as Python's base64.encodebytes() puts them are ignored.
            file(QStringLiteral("wrapped"), "content_base64", QStringLiteral("aGVs\nbG8=\n")),
            file(QStringLiteral("empty"), "text", QString())});
        QVERIFY2(files.ok(), files.ok() ? "" : qPrintable(files.error().message));
        QCOMPARE(files->size(), 4);
        QCOMPARE(files->at(0).name, QStringLiteral("data.csv"));
        QCOMPARE(files->at(0).content, QByteArray("a,b\n1,h\xc3\xa9llo\n"));
        QCOMPARE(files->at(1).content, binary);
        QCOMPARE(files->at(2).content, QByteArray("hello"));
        QCOMPARE(files->at(3).content, QByteArray());
        QCOMPARE(files->at(0).size, 13);
        QCOMPARE(files->at(1).size, 8);
        QVERIFY(files->at(0).hostPath.isEmpty());

        QVERIFY(mcp::parseRunInputFiles(QJsonValue()).value().isEmpty());
        QVERIFY(mcp::parseRunInputFiles(QJsonValue(QJsonValue::Null)).value().isEmpty());
        QVERIFY(mcp::parseRunInputFiles(QJsonArray()).value().isEmpty());
    }

    void badFilesAreRefused_data()
    {
        QTest::addColumn<QJsonValue>("files");
        QTest::addColumn<QString>("error");
        const QString hello = base64("hello");
        QTest::newRow("not an array") << QJsonValue(QStringLiteral("data.csv"))
                                      << "files must be an array of {path, content_base64} or {path, text} objects";
        QTest::newRow("not an object") << QJsonValue(QJsonArray{QStringLiteral("data.csv")})
                                       << "files[0] must be an object with path and content_base64 or text";
        QTest::newRow("no path") << QJsonValue(QJsonArray{QJsonObject{{QStringLiteral("text"), QStringLiteral("x")}}})
                                 << "files[0].path is required";
        QTest::newRow("path not a string") << QJsonValue(QJsonArray{file(QStringLiteral("a"), "text", QStringLiteral("x")),
                                                                    QJsonObject{{QStringLiteral("path"), 3},
                                                                                {QStringLiteral("text"), QStringLiteral("x")}}})
                                           << "files[1].path must be a string";
        QTest::newRow("absolute") << QJsonValue(QJsonArray{textFile(QStringLiteral("/etc/passwd"), QStringLiteral("x"))})
                                  << "input file /etc/passwd must be a plain file name (no folders, no . or ..)";
        QTest::newRow("parent") << QJsonValue(QJsonArray{textFile(QStringLiteral("../x"), QStringLiteral("x"))})
                                << "input file ../x must be a plain file name (no folders, no . or ..)";
        QTest::newRow("dot-dot") << QJsonValue(QJsonArray{textFile(QStringLiteral(".."), QStringLiteral("x"))})
                                 << "input file .. must be a plain file name (no folders, no . or ..)";
        QTest::newRow("folder") << QJsonValue(QJsonArray{textFile(QStringLiteral("data/a.csv"), QStringLiteral("x"))})
                                << "input file data/a.csv must be a plain file name (no folders, no . or ..)";
        QTest::newRow("empty name") << QJsonValue(QJsonArray{textFile(QString(), QStringLiteral("x"))})
                                    << "files[0].path must not be empty";
        QTest::newRow("control character") << QJsonValue(QJsonArray{textFile(QStringLiteral("a\nb"), QStringLiteral("x"))})
                                           << "files[0].path must not contain control characters";
        QTest::newRow("too long") << QJsonValue(QJsonArray{textFile(QString(256, QLatin1Char('a')), QStringLiteral("x"))})
                                  << "files[0].path is longer than 255 bytes";
        QTest::newRow("script") << QJsonValue(QJsonArray{textFile(QStringLiteral("main.py"), QStringLiteral("x"))})
                                << "input file main.py would replace the script main.py; rename it";
        QTest::newRow("out") << QJsonValue(QJsonArray{textFile(QStringLiteral("out"), QStringLiteral("x"))})
                             << "input file out would take the place of the out/ folder for artifacts; rename it";
        QTest::newRow("same name") << QJsonValue(QJsonArray{textFile(QStringLiteral("a.csv"), QStringLiteral("1")),
                                                            textFile(QStringLiteral("b.csv"), QStringLiteral("2")),
                                                            file(QStringLiteral("a.csv"), "content_base64", hello)})
                                   << "files[0] and files[2] are both named a.csv; give each file its own name";
        QTest::newRow("no content") << QJsonValue(QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("a")}}})
                                    << "files[0] needs content_base64 or text";
        QTest::newRow("both contents")
            << QJsonValue(QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("a")},
                                                 {QStringLiteral("text"), QStringLiteral("x")},
                                                 {QStringLiteral("content_base64"), hello}}})
            << "files[0] has both content_base64 and text; give one";
        QTest::newRow("text not a string") << QJsonValue(QJsonArray{file(QStringLiteral("a"), "text", 3)})
                                           << "files[0].text must be a string";
        QTest::newRow("base64 not a string") << QJsonValue(QJsonArray{file(QStringLiteral("a"), "content_base64", true)})
                                             << "files[0].content_base64 must be a string";
        QTest::newRow("bad base64") << QJsonValue(QJsonArray{file(QStringLiteral("a"), "content_base64", QStringLiteral("no!base64"))})
                                    << "files[0].content_base64 is not valid base64";
        QJsonArray many;
        for (int i = 0; i <= mcp::kMaxInputFiles; ++i)
            many.append(textFile(QStringLiteral("f%1").arg(i), QStringLiteral("x")));
        QTest::newRow("too many") << QJsonValue(many) << "files has 101 entries; run_code takes up to 100 files";
        const QString half = base64(QByteArray(mcp::kMaxInputBytes / 2, 'x'));
        QTest::newRow("too large") << QJsonValue(QJsonArray{file(QStringLiteral("a"), "content_base64", half),
                                                            file(QStringLiteral("b"), "content_base64", half),
                                                            textFile(QStringLiteral("c"), QStringLiteral("x"))})
                                   << "the input files hold more than run_code takes: up to 16.0 MiB (16777216 bytes) together";
    }

    void badFilesAreRefused()
    {
        QFETCH(QJsonValue, files);
        QFETCH(QString, error);
        auto parsed = mcp::parseRunInputFiles(files);
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error().message, error);
    }

    void exactlyTheCapIsTaken()
    {
        const QString half = base64(QByteArray(mcp::kMaxInputBytes / 2, 'x'));
        auto files = mcp::parseRunInputFiles(QJsonArray{file(QStringLiteral("a"), "content_base64", half),
                                                        file(QStringLiteral("b"), "content_base64", half)});
        QVERIFY(files.ok());
    }

    void stagedFilesHoldTheBytes()
    {
        QTemporaryDir folder;
        const QByteArray binary("\x00\x01\xfe\xff", 4);
        const QByteArray text("text\n");
        auto paths = mcp::stageRunInputFiles({{QStringLiteral("a.bin"), binary.size(), {}, binary},
                                              {QStringLiteral("b.txt"), text.size(), {}, text}},
                                             folder.path());
        QVERIFY(paths.ok());
        QCOMPARE(paths.value(), QStringList({folder.filePath(QStringLiteral("a.bin")), folder.filePath(QStringLiteral("b.txt"))}));
        QFile a(paths->at(0));
        QVERIFY(a.open(QIODevice::ReadOnly));
        QCOMPARE(a.readAll(), binary);
    }

    /// Through the server: bad files are a tool error before the gate; good ones reach the gate
    /// with their names and sizes, and the run's row names them after the script.
    void runCodeShowsItsFilesToTheGateAndTheLog()
    {
        auto log = CommandLog::open(m_dir.filePath(QStringLiteral("log.sqlite")));
        QVERIFY(log.ok());
        RecordingGate gate;
        McpServer server(&gate, log.value());
        McpTool runCode = workbenchTools(std::make_shared<McpSandboxes>(nullptr)).at(0);
        QCOMPARE(runCode.name, QStringLiteral("run_code"));
        QCOMPARE(runCode.inputSchema.value(QLatin1String("properties")).toObject().value(QLatin1String("files")).toObject(),
                 mcp::runInputFilesSchema());
        const QJsonObject outputs = runCode.outputSchema.value(QLatin1String("properties")).toObject();
        QCOMPARE(outputs.value(QLatin1String("artifacts")).toObject().value(QLatin1String("items")).toObject(),
                 mcp::runArtifactSchema());
        QVERIFY(runCode.outputSchema.value(QLatin1String("required")).toArray().contains(QStringLiteral("artifacts")));
        std::optional<McpCall> ran;
        runCode.run = [&ran](const McpCall& call) {
            ran = call;
            McpToolResult result;
            result.structured = {{QStringLiteral("stdout"), QString()}};
            result.content = QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("image")},
                                                    {QStringLiteral("data"), QStringLiteral("AAAA")},
                                                    {QStringLiteral("mimeType"), QStringLiteral("image/png")}}};
            return result;
        };
        server.addTool(runCode);
        const QString session = server.openSession(QStringLiteral("stdio"));
        const auto send = [&](const QJsonObject& params) {
            std::optional<QJsonObject> answer;
            server.handle(session,
                          QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                      {QStringLiteral("id"), 1},
                                      {QStringLiteral("method"), params.isEmpty() ? QStringLiteral("initialize") : QStringLiteral("tools/call")},
                                      {QStringLiteral("params"),
                                       params.isEmpty() ? QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                                                      {QStringLiteral("clientInfo"),
                                                                       QJsonObject{{QStringLiteral("name"), QStringLiteral("agent-x")}}}}
                                                        : params}},
                          [&answer](const QJsonObject& reply) { answer = reply; });
            (void)QTest::qWaitFor([&] { return answer.has_value(); }, 5000);
            return answer.value_or(QJsonObject()).value(QLatin1String("result")).toObject();
        };
        send({});

        const QJsonObject refused = send({{QStringLiteral("name"), QStringLiteral("run_code")},
                                          {QStringLiteral("arguments"),
                                           QJsonObject{{QStringLiteral("code"), QStringLiteral("print(1)")},
                                                       {QStringLiteral("files"), QJsonArray{textFile(QStringLiteral("../etc/x"), QStringLiteral("x"))}}}}});
        QCOMPARE(refused.value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(refused.value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString(),
                 QStringLiteral("bad arguments: input file ../etc/x must be a plain file name (no folders, no . or ..)"));
        QVERIFY(gate.asked.isEmpty());
        QVERIFY(!ran);

        const QJsonObject answered = send(
            {{QStringLiteral("name"), QStringLiteral("run_code")},
             {QStringLiteral("arguments"),
              QJsonObject{{QStringLiteral("code"), QStringLiteral("print(open('data.csv').read())\n")},
                          {QStringLiteral("files"), QJsonArray{textFile(QStringLiteral("data.csv"), QStringLiteral("a,b\n")),
                                                               file(QStringLiteral("seed.bin"), "content_base64", base64(QByteArray(2048, '\0')))}}}}});
        QCOMPARE(answered.value(QLatin1String("isError")).toBool(), false);
        QVERIFY(ran);
        QCOMPARE(gate.asked.size(), 1);
        const ActionRequest& asked = gate.asked[0];
        QCOMPARE(asked.kind, ActionKind::Run);
        QCOMPARE(asked.command, QStringLiteral("print(open('data.csv').read())\n"));
        QCOMPARE(asked.inputFiles.size(), 2);
        QCOMPARE(asked.inputFiles[0].name, QStringLiteral("data.csv"));
        QCOMPARE(asked.inputFiles[0].size, 4);
        QCOMPARE(asked.inputFiles[1].name, QStringLiteral("seed.bin"));
        QCOMPARE(asked.inputFiles[1].size, 2048);
        // The text block (the structured JSON) comes first, the tool's content blocks after it.
        const QJsonArray content = answered.value(QLatin1String("content")).toArray();
        QCOMPARE(content.size(), 2);
        QCOMPARE(content[0].toObject().value(QLatin1String("text")).toString(), QStringLiteral("{\"stdout\":\"\"}"));
        QCOMPARE(content[1].toObject().value(QLatin1String("type")).toString(), QStringLiteral("image"));

        LogFilter filter;
        filter.outcome = Outcome::Succeeded;
        const auto rows = log.value()->rows(filter);
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->at(0).command,
                 QStringLiteral("print(open('data.csv').read())\n# input files: data.csv, seed.bin"));
    }

    void artifactsBecomeEntriesAndContentBlocks()
    {
        const QString out = m_dir.filePath(QStringLiteral("run/out"));
        const QByteArray text = "total,3\nhéllo\n";
        const QByteArray binary("\x00\xff\xfe\x01", 4);
        const QByteArray big(mcp::kMaxInlineFileBytes + 1, 'x');
        writeFile(out + QStringLiteral("/big.txt"), big);
        writeFile(out + QStringLiteral("/blob.bin"), binary);
        writeFile(out + QStringLiteral("/plot.png"), kPng);
        writeFile(out + QStringLiteral("/tables/result.csv"), text);
        const QString run = QStringLiteral("sbw-run-20260101-120000-0a1b");
        const mcp::RunArtifactsResult result = mcp::runArtifactsResult(artifactsIn(out), run);

        const auto entry = [](const QString& path, qint64 size, const QString& hash, const QString& mime, bool isInline) {
            return QJsonObject{{QStringLiteral("path"), path},
                               {QStringLiteral("size_bytes"), size},
                               {QStringLiteral("sha256"), hash},
                               {QStringLiteral("mime_type"), mime},
                               {QStringLiteral("inline"), isInline},
                               {QStringLiteral("uri"), QStringLiteral("sbw://runs/sbw-run-20260101-120000-0a1b/") + path}};
        };
        QCOMPARE(result.list,
                 QJsonArray({entry(QStringLiteral("out/big.txt"), big.size(), sha256(big), QStringLiteral("text/plain"), false),
                             entry(QStringLiteral("out/blob.bin"), 4, sha256(binary), QStringLiteral("application/octet-stream"), true),
                             entry(QStringLiteral("out/plot.png"), kPng.size(), sha256(kPng), QStringLiteral("image/png"), true),
                             entry(QStringLiteral("out/tables/result.csv"), text.size(), sha256(text), QStringLiteral("text/csv"), true)}));
        const QJsonArray expected{
            QJsonObject{{QStringLiteral("type"), QStringLiteral("resource")},
                        {QStringLiteral("resource"),
                         QJsonObject{{QStringLiteral("uri"), QStringLiteral("sbw://runs/sbw-run-20260101-120000-0a1b/out/blob.bin")},
                                     {QStringLiteral("mimeType"), QStringLiteral("application/octet-stream")},
                                     {QStringLiteral("blob"), base64(binary)}}}},
            QJsonObject{{QStringLiteral("type"), QStringLiteral("image")},
                        {QStringLiteral("data"), base64(kPng)},
                        {QStringLiteral("mimeType"), QStringLiteral("image/png")}},
            QJsonObject{{QStringLiteral("type"), QStringLiteral("resource")},
                        {QStringLiteral("resource"),
                         QJsonObject{{QStringLiteral("uri"), QStringLiteral("sbw://runs/sbw-run-20260101-120000-0a1b/out/tables/result.csv")},
                                     {QStringLiteral("mimeType"), QStringLiteral("text/csv")},
                                     {QStringLiteral("text"), QString::fromUtf8(text)}}}}};
        QCOMPARE(result.content, expected);

        // Every artifact is a resource, the big one too (resources/read takes up to 16 MiB).
        QCOMPARE(result.resources.size(), 4);
        const mcp::McpResource& csv = result.resources[3];
        QCOMPARE(csv.uri, QStringLiteral("sbw://runs/sbw-run-20260101-120000-0a1b/out/tables/result.csv"));
        QCOMPARE(csv.name, QStringLiteral("out/tables/result.csv"));
        QCOMPARE(csv.description, QStringLiteral("written by run_code in the microVM sbw-run-20260101-120000-0a1b"));
        QCOMPARE(csv.mimeType, QStringLiteral("text/csv"));
        QCOMPARE(csv.size, text.size());
        QCOMPARE(csv.hostPath, out + QStringLiteral("/tables/result.csv"));
        QCOMPARE(result.resources[0].uri, QStringLiteral("sbw://runs/sbw-run-20260101-120000-0a1b/out/big.txt"));
    }

    void artifactUrisEncodeTheirNames()
    {
        QCOMPARE(mcp::runArtifactUri(QStringLiteral("sbw-run-1"), QStringLiteral("a b/c#d?.txt")),
                 QStringLiteral("sbw://runs/sbw-run-1/out/a%20b/c%23d%3F.txt"));
        QCOMPARE(mcp::runArtifactUri(QStringLiteral("sbw-run-1"), QStringLiteral("é.csv")),
                 QStringLiteral("sbw://runs/sbw-run-1/out/%C3%A9.csv"));
    }

    void inlineFilesStopAtTheTotalCap()
    {
        const QString out = m_dir.filePath(QStringLiteral("capped/out"));
        const QByteArray chunk(mcp::kMaxInlineFileBytes - 1024, 'a');
        for (int i = 0; i < 5; ++i)
            writeFile(out + QStringLiteral("/f%1.txt").arg(i), chunk);
        writeFile(out + QStringLiteral("/g.txt"), "small");
        const mcp::RunArtifactsResult result = mcp::runArtifactsResult(artifactsIn(out), QStringLiteral("r"));
        QList<bool> inlined;
        for (const QJsonValue& entry : result.list)
            inlined << entry.toObject().value(QLatin1String("inline")).toBool();
        // Four files of 1 MiB less 1 KiB leave 4 KiB of the 4 MiB: the fifth does not fit, the
        // small one after it still does.
        QCOMPARE(inlined, QList<bool>({true, true, true, true, false, true}));
        QCOMPARE(result.content.size(), 5);
    }
};

QTEST_GUILESS_MAIN(TestMcpRunFiles)
#include "tst_mcprunfiles.moc"

// Guest image templates through `sbw image`: listing built-in and user recipes, reusing a cached
// build, rebuilding after the recipe changed, removing builds. Runs the real builder
// (packaging/guest/build-image.sh: mmdebstrap from Debian's mirror, about one to two minutes
// for the one real build here) in a temporary cache, seeded with a copy of the minimal image
// that the test suite's set-up builds.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct CliResult
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

class TestImages : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home;
    QString m_images;  ///< the temporary cache's images folder
    QString m_recipes; ///< the temporary user recipe folder

    CliResult sbw(const QStringList& arguments, int timeoutMs = 60'000)
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CACHE_HOME"), m_home.filePath(QStringLiteral("cache")));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_STATE_HOME"), m_home.filePath(QStringLiteral("state")));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(SBW_CLI_PATH), arguments);
        if (!process.waitForFinished(timeoutMs)) {
            process.kill();
            process.waitForFinished();
        }
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                process.readAllStandardOutput(), process.readAllStandardError()};
    }

    /// `sbw image list --json` as name → object.
    QMap<QString, QJsonObject> listed()
    {
        const CliResult list = sbw({QStringLiteral("image"), QStringLiteral("list"), QStringLiteral("--json")});
        QMap<QString, QJsonObject> byName;
        if (list.exitCode != 0) {
            qWarning() << list.err;
            return byName;
        }
        for (const QJsonValue& row : QJsonDocument::fromJson(list.out).array())
            byName.insert(row[QLatin1String("name")].toString(), row.toObject());
        return byName;
    }

    static bool copyTree(const QString& from, const QString& to)
    {
        if (!QDir().mkpath(to))
            return false;
        for (const QFileInfo& entry : QDir(from).entryInfoList(QDir::Files)) {
            if (!QFile::copy(entry.filePath(), to + QLatin1Char('/') + entry.fileName()))
                return false;
        }
        return true;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        const QString realImages = QDir::homePath() + QLatin1String("/.cache/sandbox-workbench/images");
        const QString cache = qEnvironmentVariable("XDG_CACHE_HOME");
        const QString source = (cache.isEmpty() ? realImages : cache + QLatin1String("/sandbox-workbench/images"))
                               + QLatin1String("/minimal");
        const QFileInfo built(source);
        if (!QFileInfo::exists(source + QLatin1String("/manifest.json")))
            QFAIL(qPrintable(QStringLiteral("no minimal image at %1: run packaging/guest/build-image.sh minimal")
                                 .arg(source)));
        m_images = m_home.filePath(QStringLiteral("cache/sandbox-workbench/images"));
        m_recipes = m_home.filePath(QStringLiteral("config/sandbox-workbench/recipes"));
        const QString hash = QFileInfo(built.canonicalFilePath()).fileName();
        QVERIFY(copyTree(built.canonicalFilePath(), m_images + QLatin1Char('/') + hash));
        QVERIFY(QFile::link(hash, m_images + QLatin1String("/minimal")));
        QVERIFY(QDir().mkpath(m_recipes));
    }

    void listsBuiltInRecipes()
    {
        const auto rows = listed();
        QVERIFY2(rows.contains(QStringLiteral("minimal")), "minimal is listed");
        QVERIFY2(rows.contains(QStringLiteral("python-data")), "python-data is listed");
        QCOMPARE(rows[QStringLiteral("minimal")][QLatin1String("source")].toString(), QStringLiteral("built-in"));
        QCOMPARE(rows[QStringLiteral("minimal")][QLatin1String("state")].toString(), QStringLiteral("built"));
        QCOMPARE(rows[QStringLiteral("python-data")][QLatin1String("state")].toString(), QStringLiteral("not built"));
    }

    void buildingTwiceReusesTheCache()
    {
        const QString before = QFileInfo(m_images + QLatin1String("/minimal")).symLinkTarget();
        for (int i = 0; i < 2; ++i) {
            const CliResult build = sbw({QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("minimal")});
            QCOMPARE(build.exitCode, 0);
            QVERIFY2(build.err.contains("reusing cached image minimal"), build.err.constData());
        }
        QCOMPARE(QFileInfo(m_images + QLatin1String("/minimal")).symLinkTarget(), before);
        QCOMPARE(QDir(m_images).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks).size(), 1);
    }

    void changedUserRecipeRebuilds()
    {
        // A user recipe with the built-in's text hides it and has the same hash: built.
        QFile builtIn(QStringLiteral(SBW_SOURCE_DIR "/packaging/guest/minimal.recipe"));
        QVERIFY(builtIn.open(QIODevice::ReadOnly));
        const QByteArray text = builtIn.readAll();
        const QString userRecipe = m_recipes + QLatin1String("/minimal.recipe");
        {
            QFile file(userRecipe);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        }
        auto rows = listed();
        QCOMPARE(rows[QStringLiteral("minimal")][QLatin1String("source")].toString(), QStringLiteral("user"));
        QCOMPARE(rows[QStringLiteral("minimal")][QLatin1String("recipe_path")].toString(), userRecipe);
        QCOMPARE(rows[QStringLiteral("minimal")][QLatin1String("state")].toString(), QStringLiteral("built"));
        const QString oldHash = rows[QStringLiteral("minimal")][QLatin1String("built_hash")].toString();

        // One more package: outdated, and a build makes a new image that has it.
        {
            QFile file(userRecipe);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text + "PACKAGES=\"$PACKAGES jq\"\n");
        }
        rows = listed();
        QCOMPARE(rows[QStringLiteral("minimal")][QLatin1String("state")].toString(), QStringLiteral("outdated"));
        const CliResult build = sbw({QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("minimal")},
                                    20 * 60'000);
        if (build.exitCode != 0)
            qWarning().noquote() << "builder output (end):" << build.err.right(1500);
        QCOMPARE(build.exitCode, 0);
        QVERIFY2(build.err.contains("building image minimal"), build.err.right(2000).constData());
        QVERIFY2(build.err.contains("[5/5] writing manifest"), build.err.right(2000).constData());

        rows = listed();
        QCOMPARE(rows[QStringLiteral("minimal")][QLatin1String("state")].toString(), QStringLiteral("built"));
        const QString newHash = rows[QStringLiteral("minimal")][QLatin1String("built_hash")].toString();
        QVERIFY(!newHash.isEmpty());
        QVERIFY(newHash != oldHash);
        QFile manifest(m_images + QLatin1Char('/') + newHash + QLatin1String("/manifest.json"));
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        bool hasJq = false;
        for (const QJsonValue& package : QJsonDocument::fromJson(manifest.readAll())[QLatin1String("packages")].toArray())
            hasJq = hasJq || package.toString().startsWith(QLatin1String("jq="));
        QVERIFY2(hasJq, "the rebuilt image lists jq");
    }

    void removeDeletesEveryBuild()
    {
        const CliResult rm = sbw({QStringLiteral("image"), QStringLiteral("rm"), QStringLiteral("minimal")});
        QCOMPARE(rm.exitCode, 0);
        QCOMPARE(QDir(m_images).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks), QStringList());
        QVERIFY(!QFileInfo(m_images + QLatin1String("/minimal")).isSymLink());
        QCOMPARE(listed()[QStringLiteral("minimal")][QLatin1String("state")].toString(), QStringLiteral("not built"));

        const CliResult again = sbw({QStringLiteral("image"), QStringLiteral("rm"), QStringLiteral("minimal")});
        QCOMPARE(again.exitCode, 125);
        QVERIFY2(again.err.startsWith("sbw: error: no built image 'minimal'"), again.err.constData());
    }

    void unknownRecipeIsAClearError()
    {
        const CliResult build = sbw({QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("no-such")});
        QCOMPARE(build.exitCode, 125);
        QVERIFY2(build.err.startsWith("sbw: error: no image recipe 'no-such'"), build.err.constData());
    }
};

} // namespace

QTEST_GUILESS_MAIN(TestImages)
#include "tst_images.moc"

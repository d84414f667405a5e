// Image recipes as `sbw image list` and the template pickers see them: NAME and DESCRIPTION
// lines, built-in and user folders, a user recipe hiding a built-in one.
#include "base/DataPaths.h"
#include "image/ImageRecipe.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace sbw;

class TestImageRecipe : public QObject
{
    Q_OBJECT

    QTemporaryDir m_config;

    void writeUserRecipe(const QString& file, const QByteArray& text)
    {
        QVERIFY(QDir().mkpath(paths::userRecipesDir()));
        QFile out(paths::userRecipesDir() + QLatin1Char('/') + file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
    }

    void readsNameAndDescription()
    {
        writeUserRecipe(QStringLiteral("quoted.recipe"),
                        "# a comment\nNAME=tools   # trailing comment\nDESCRIPTION='jq and curl'\n"
                        "PACKAGES=\"\n  jq\n\"\n");
        auto recipe = ImageRecipe::read(paths::userRecipesDir() + QLatin1String("/quoted.recipe"));
        QVERIFY(recipe);
        QCOMPARE(recipe->name, QStringLiteral("tools"));
        QCOMPARE(recipe->description, QStringLiteral("jq and curl"));

        writeUserRecipe(QStringLiteral("nameless.recipe"), "SUITE=bookworm\n");
        auto nameless = ImageRecipe::read(paths::userRecipesDir() + QLatin1String("/nameless.recipe"));
        QVERIFY(!nameless);
        QVERIFY(nameless.error().message.endsWith(QLatin1String("does not set NAME")));
        QFile::remove(paths::userRecipesDir() + QLatin1String("/nameless.recipe"));
    }

    void builtInRecipesAreListed()
    {
        auto minimal = ImageRecipe::find(QStringLiteral("minimal"));
        QVERIFY(minimal);
        QVERIFY(!minimal->user);
        QCOMPARE(minimal->path, paths::guestBuilderDir() + QLatin1String("/minimal.recipe"));
        auto data = ImageRecipe::find(QStringLiteral("python-data"));
        QVERIFY(data);
        QVERIFY(data->description.contains(QLatin1String("pandas")));
    }

    void userRecipeHidesBuiltIn()
    {
        writeUserRecipe(QStringLiteral("mine.recipe"), "NAME=minimal\nDESCRIPTION=\"my minimal\"\n");
        auto minimal = ImageRecipe::find(QStringLiteral("minimal"));
        QVERIFY(minimal);
        QVERIFY(minimal->user);
        QCOMPARE(minimal->description, QStringLiteral("my minimal"));
        int count = 0;
        for (const ImageRecipe& recipe : ImageRecipe::all())
            count += recipe.name == QLatin1String("minimal");
        QCOMPARE(count, 1);
    }

    void unknownNameNamesTheFolders()
    {
        auto missing = ImageRecipe::find(QStringLiteral("no-such"));
        QVERIFY(!missing);
        QVERIFY(missing.error().message.startsWith(QLatin1String("no image recipe 'no-such'")));
        QVERIFY(missing.error().message.contains(paths::userRecipesDir()));
    }
};

QTEST_GUILESS_MAIN(TestImageRecipe)
#include "tst_imagerecipe.moc"

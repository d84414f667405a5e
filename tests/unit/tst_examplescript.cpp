// Examples of the File menu: the project's resources/examples and their metadata lines.
#include "run/ExampleScript.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace sbw;

class TestExample : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void projectExamplesAreListed()
    {
        QStringList titles;
        for (const ExampleScript& example : ExampleScript::all())
            titles << example.title;
        QCOMPARE(titles, QStringList({QStringLiteral("A failing script with a traceback"),
                                      QStringLiteral("A long-running script with a progress bar"),
                                      QStringLiteral("CSV summary and chart"),
                                      QStringLiteral("Hello from the sandbox")}));
    }

    void csvExampleNeedsPythonDataAndItsData()
    {
        for (const ExampleScript& example : ExampleScript::all()) {
            if (example.title != QLatin1String("CSV summary and chart"))
                continue;
            QCOMPARE(example.image, QStringLiteral("python-data"));
            QCOMPARE(example.language, QStringLiteral("python"));
            QCOMPARE(example.inputFiles.size(), 1);
            QVERIFY(example.inputFiles.first().endsWith(QLatin1String("/csv-summary/sales.csv")));
            QVERIFY(QFile::exists(example.inputFiles.first()));
            return;
        }
        QFAIL("no CSV example");
    }

    void badMetadataIsReported()
    {
        QTemporaryDir dir;
        const auto write = [&](const QString& name, const QByteArray& text) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        };
        write(QStringLiteral("plain.py"), "print(1)\n");
        write(QStringLiteral("missing.sh"), "# Example: Needs data\n# Files: gone.csv\necho\n");
        write(QStringLiteral("late.py"), "import os\n# Example: Too late\n");
        write(QStringLiteral("notes.txt"), "# Example: Not a script\n");

        QVERIFY(ExampleScript::read(dir.filePath(QStringLiteral("plain.py"))).error().message.contains(
            QLatin1String("has no \"# Example: TITLE\" line")));
        QVERIFY(ExampleScript::read(dir.filePath(QStringLiteral("missing.sh"))).error().message.contains(
            QLatin1String("gone.csv, which does not exist")));
        QVERIFY(!ExampleScript::read(dir.filePath(QStringLiteral("late.py"))));
        QVERIFY(ExampleScript::read(dir.filePath(QStringLiteral("notes.txt"))).error().message.contains(
            QLatin1String("neither a .py nor a .sh script")));
    }
};

QTEST_GUILESS_MAIN(TestExample)
#include "tst_examplescript.moc"

#include "run/ExampleScript.h"

#include "base/DataPaths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace sbw {

Expected<ExampleScript> ExampleScript::read(const QString& scriptPath)
{
    const QFileInfo info(scriptPath);
    ExampleScript example;
    example.script = info.absoluteFilePath();
    if (info.suffix() == QLatin1String("py"))
        example.language = QStringLiteral("python");
    else if (info.suffix() == QLatin1String("sh"))
        example.language = QStringLiteral("sh");
    else
        return makeError(QStringLiteral("%1 is neither a .py nor a .sh script").arg(scriptPath));

    QFile file(scriptPath);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return makeError(QStringLiteral("cannot read %1: %2").arg(scriptPath, file.errorString()));
    static const QRegularExpression field(QStringLiteral("^#\\s*(Example|Image|Files):\\s*(.*?)\\s*$"));
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (!line.startsWith(QLatin1Char('#')))
            break; // metadata is the leading comment block only
        const auto match = field.match(line);
        if (!match.hasMatch())
            continue;
        const QString key = match.captured(1), value = match.captured(2);
        if (key == QLatin1String("Example")) {
            example.title = value;
        } else if (key == QLatin1String("Image")) {
            example.image = value;
        } else {
            for (const QString& name : value.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
                const QString path = info.absoluteDir().filePath(name);
                if (!QFileInfo::exists(path))
                    return makeError(QStringLiteral("%1 lists the input file %2, which does not exist")
                                         .arg(scriptPath, path));
                example.inputFiles << path;
            }
        }
    }
    if (example.title.isEmpty())
        return makeError(QStringLiteral("%1 has no \"# Example: TITLE\" line").arg(scriptPath));
    return example;
}

QList<ExampleScript> ExampleScript::all()
{
    QList<ExampleScript> examples;
    const QDir root(paths::examplesDir());
    QStringList folders{root.absolutePath()};
    for (const QString& sub : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        folders << root.absoluteFilePath(sub);
    for (const QString& folder : folders) {
        const QDir dir(folder);
        for (const QString& name : dir.entryList({QStringLiteral("*.py"), QStringLiteral("*.sh")}, QDir::Files)) {
            if (auto example = read(dir.absoluteFilePath(name)))
                examples << example.value();
        }
    }
    std::sort(examples.begin(), examples.end(),
              [](const ExampleScript& a, const ExampleScript& b) { return a.title < b.title; });
    return examples;
}

} // namespace sbw

#include "CliImage.h"

#include "base/DataPaths.h"
#include "image/ImageBuilder.h"
#include "image/ImageRecipe.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace sbw {
namespace {

constexpr int kUsageError = 2;
constexpr int kWorkbenchError = 125;

const char kUsage[] =
    "usage: sbw image list [--json]\n"
    "       sbw image build NAME|PATH\n"
    "       sbw image rm NAME\n\n"
    "Guest image templates. A recipe (NAME.recipe) names Debian packages and setup steps;\n"
    "built-in recipes: %s\n"
    "your own recipes: %s\n"
    "built images:     %s\n";

int usage()
{
    std::fprintf(stderr, kUsage, qPrintable(paths::guestBuilderDir()), qPrintable(paths::userRecipesDir()),
                 qPrintable(paths::imagesDir()));
    return kUsageError;
}

int fail(const QString& message)
{
    std::fprintf(stderr, "sbw: error: %s\n", qPrintable(message));
    return kWorkbenchError;
}

/// The manifest's "built" time of images/<name>, or empty.
QString builtTime(const QString& name)
{
    QFile file(paths::imagesDir() + QLatin1Char('/') + name + QLatin1String("/manifest.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("built")).toString();
}

qint64 diskBytes(const QString& name)
{
    return QFileInfo(paths::imagesDir() + QLatin1Char('/') + name + QLatin1String("/rootfs.qcow2")).size();
}

int list(bool json)
{
    QJsonArray rows;
    QString table = QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                        .arg(QStringLiteral("NAME"), -16)
                        .arg(QStringLiteral("SOURCE"), -8)
                        .arg(QStringLiteral("STATE"), -9)
                        .arg(QStringLiteral("HASH"), -16)
                        .arg(QStringLiteral("SIZE MiB"), 8)
                        .arg(QStringLiteral("DESCRIPTION"));
    for (const ImageRecipe& recipe : ImageRecipe::all()) {
        auto state = ImageBuilder::stateOf(recipe);
        if (!state)
            return fail(recipe.path + QLatin1String(": ") + state.error().message);
        const QString hash = ImageBuilder::builtHash(recipe.name);
        const qint64 bytes = hash.isEmpty() ? 0 : diskBytes(recipe.name);
        const QString source = recipe.user ? QStringLiteral("user") : QStringLiteral("built-in");
        rows.append(QJsonObject{
            {QStringLiteral("name"), recipe.name},
            {QStringLiteral("source"), source},
            {QStringLiteral("state"), imageStateName(state.value())},
            {QStringLiteral("recipe_path"), recipe.path},
            {QStringLiteral("built_hash"), hash.isEmpty() ? QJsonValue() : QJsonValue(hash)},
            {QStringLiteral("built"), hash.isEmpty() ? QJsonValue() : QJsonValue(builtTime(recipe.name))},
            {QStringLiteral("disk_bytes"), bytes},
            {QStringLiteral("description"), recipe.description},
        });
        table += QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                     .arg(recipe.name, -16)
                     .arg(source, -8)
                     .arg(imageStateName(state.value()), -9)
                     .arg(hash.isEmpty() ? QStringLiteral("-") : hash, -16)
                     .arg(hash.isEmpty() ? QStringLiteral("-") : QString::number(bytes / (1024 * 1024)), 8)
                     .arg(recipe.description);
    }
    const QByteArray out = json ? QJsonDocument(rows).toJson(QJsonDocument::Compact) + '\n' : table.toUtf8();
    std::fwrite(out.constData(), 1, size_t(out.size()), stdout);
    return 0;
}

int build(const QString& nameOrPath)
{
    auto recipe = ImageRecipe::find(nameOrPath);
    if (!recipe)
        return fail(recipe.error().message);
    ImageBuilder builder;
    int status = 0;
    QObject::connect(&builder, &ImageBuilder::line, [](const QString& text) {
        std::fprintf(stderr, "%s\n", qPrintable(text));
    });
    QObject::connect(&builder, &ImageBuilder::finished, [&status](const Expected<void>& result) {
        status = result ? 0 : fail(QStringLiteral("image build failed: ") + result.error().message);
        QCoreApplication::exit(status);
    });
    builder.start(recipe.value());
    QCoreApplication::exec();
    return status;
}

int remove(const QString& name)
{
    if (name.isEmpty() || name.contains(QLatin1Char('/')) || name.startsWith(QLatin1Char('.')))
        return fail(QStringLiteral("'%1' is not an image name").arg(name));
    QDir images(paths::imagesDir());
    int removed = 0;
    for (const QFileInfo& entry : images.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks)) {
        QFile manifest(entry.filePath() + QLatin1String("/manifest.json"));
        if (!manifest.open(QIODevice::ReadOnly))
            continue;
        if (QJsonDocument::fromJson(manifest.readAll()).object().value(QLatin1String("recipe")).toString() != name)
            continue;
        if (!QDir(entry.filePath()).removeRecursively())
            return fail(QStringLiteral("cannot remove %1").arg(entry.filePath()));
        std::fprintf(stderr, "removed %s\n", qPrintable(entry.filePath()));
        ++removed;
    }
    const QFileInfo link(images.filePath(name));
    if (link.isSymLink())
        QFile::remove(link.filePath());
    if (removed == 0)
        return fail(QStringLiteral("no built image '%1' in %2").arg(name, images.path()));
    return 0;
}

} // namespace

int imageCommand(QStringList arguments)
{
    const QString sub = arguments.value(1);
    const QStringList rest = arguments.mid(2);
    if (sub == QLatin1String("-h") || sub == QLatin1String("--help")) {
        std::printf(kUsage, qPrintable(paths::guestBuilderDir()), qPrintable(paths::userRecipesDir()),
                    qPrintable(paths::imagesDir()));
        return 0;
    }
    if (sub == QLatin1String("list") && (rest.isEmpty() || rest == QStringList{QStringLiteral("--json")}))
        return list(!rest.isEmpty());
    if (sub == QLatin1String("build") && rest.size() == 1)
        return build(rest.first());
    if (sub == QLatin1String("rm") && rest.size() == 1)
        return remove(rest.first());
    return usage();
}

} // namespace sbw

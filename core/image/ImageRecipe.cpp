#include "image/ImageRecipe.h"

#include "base/DataPaths.h"
#include "base/Logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QRegularExpression>

namespace sbw {
namespace {

QList<ImageRecipe> recipesIn(const QString& folder, bool user)
{
    QList<ImageRecipe> recipes;
    const QDir dir(folder);
    for (const QString& file : dir.entryList({QStringLiteral("*.recipe")}, QDir::Files, QDir::Name)) {
        auto recipe = ImageRecipe::read(dir.absoluteFilePath(file));
        if (!recipe) {
            qCWarning(lcVirt).noquote() << "skipping recipe:" << recipe.error().message;
            continue;
        }
        recipe->user = user;
        recipes << recipe.value();
    }
    return recipes;
}

} // namespace

Expected<ImageRecipe> ImageRecipe::read(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("cannot read recipe %1: %2").arg(path, file.errorString()));
    return parse(file.readAll(), QFileInfo(path).absoluteFilePath());
}

Expected<ImageRecipe> ImageRecipe::parse(const QByteArray& text, const QString& path)
{
    static const QRegularExpression assignment(
        QStringLiteral(R"re(^(NAME|DESCRIPTION)=(?:"([^"]*)"|'([^']*)'|(\S*))\s*(?:#.*)?$)re"));
    ImageRecipe recipe;
    recipe.path = path;
    for (const QByteArray& bytes : text.split('\n')) {
        const QString line = QString::fromUtf8(bytes).trimmed();
        const auto match = assignment.match(line);
        if (!match.hasMatch())
            continue;
        QString value = match.captured(2) + match.captured(3) + match.captured(4);
        if (match.captured(1) == QLatin1String("NAME"))
            recipe.name = value;
        else
            recipe.description = value;
    }
    if (recipe.name.isEmpty())
        return makeError(QStringLiteral("recipe %1 does not set NAME").arg(path));
    return recipe;
}

QList<ImageRecipe> ImageRecipe::all()
{
    QMap<QString, ImageRecipe> byName;
    for (const ImageRecipe& recipe : recipesIn(paths::guestBuilderDir(), false))
        byName.insert(recipe.name, recipe);
    for (const ImageRecipe& recipe : recipesIn(paths::userRecipesDir(), true))
        byName.insert(recipe.name, recipe); // the user's recipe hides a built-in one
    return byName.values();
}

Expected<ImageRecipe> ImageRecipe::find(const QString& nameOrPath)
{
    if (nameOrPath.contains(QLatin1Char('/')) || nameOrPath.endsWith(QLatin1String(".recipe")))
        return read(nameOrPath);
    for (const ImageRecipe& recipe : all()) {
        if (recipe.name == nameOrPath)
            return recipe;
    }
    return makeError(QStringLiteral("no image recipe '%1' (recipes are the *.recipe files in %2 "
                                    "and %3)")
                         .arg(nameOrPath, paths::userRecipesDir(), paths::guestBuilderDir()));
}

} // namespace sbw

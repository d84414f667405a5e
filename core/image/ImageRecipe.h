#pragma once

#include "base/Expected.h"

#include <QList>
#include <QString>

namespace sbw {

/// A guest image recipe: a `NAME.recipe` file read by packaging/guest/build-image.sh (format:
/// packaging/guest/README.md). Built-in recipes lie beside the builder (paths::guestBuilderDir());
/// a user adds their own as `paths::userRecipesDir()/NAME.recipe`.
struct ImageRecipe
{
    QString name;        ///< NAME: the image name, e.g. "python-data"
    QString description; ///< DESCRIPTION: one line for lists; may be empty
    QString path;        ///< absolute path of the recipe file
    bool user = false;   ///< from the user's recipe folder rather than the built-in ones

    /// Reads NAME and DESCRIPTION from a recipe file. Only single-line `KEY=value`,
    /// `KEY="value"` and `KEY='value'` assignments are read here; the builder sources the
    /// whole file. Errors: unreadable file, no NAME.
    static Expected<ImageRecipe> read(const QString& path);
    /// The same for the recipe text `text` of the file at `path` (absolute).
    static Expected<ImageRecipe> parse(const QByteArray& text, const QString& path);

    /// Every recipe, sorted by name: the user's first, and a user recipe hides a built-in one
    /// of the same NAME. Unreadable user recipes are skipped with a warning (category sbw.virt).
    static QList<ImageRecipe> all();

    /// The recipe with this NAME, or the recipe file at this path (an argument containing '/'
    /// or ending in ".recipe"). Error: no such recipe, naming the folders searched.
    static Expected<ImageRecipe> find(const QString& nameOrPath);
};

} // namespace sbw

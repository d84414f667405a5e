#include "image/ImageTemplateBox.h"

#include "base/DataPaths.h"
#include "image/ImageRecipe.h"

#include <QFileInfo>

namespace sbw {
namespace {

bool isBuilt(const QString& name)
{
    return QFileInfo::exists(paths::imagesDir() + QLatin1Char('/') + name + QLatin1String("/manifest.json"));
}

} // namespace

ImageTemplateBox::ImageTemplateBox(QWidget* parent) : QComboBox(parent)
{
    reload();
}

QString ImageTemplateBox::currentRecipe() const
{
    return currentData().toString();
}

void ImageTemplateBox::setCurrentRecipe(const QString& name)
{
    int index = findData(name);
    if (index < 0) {
        addItem(name, name);
        index = count() - 1;
    }
    setCurrentIndex(index);
}

void ImageTemplateBox::reload()
{
    const QString current = count() > 0 ? currentRecipe() : QStringLiteral("minimal");
    clear();
    for (const ImageRecipe& recipe : ImageRecipe::all()) {
        const QString label = isBuilt(recipe.name) ? recipe.name : tr("%1 (not built)").arg(recipe.name);
        addItem(label, recipe.name);
        setItemData(count() - 1,
                    tr("%1\n%2%3").arg(recipe.description, recipe.path,
                                       recipe.user ? tr(" (your recipe)") : QString()),
                    Qt::ToolTipRole);
    }
    setCurrentRecipe(current);
}

} // namespace sbw

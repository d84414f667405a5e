#pragma once

#include <QComboBox>

namespace sbw {

/// A combo box of the guest image templates (ImageRecipe::all()): each item is the recipe
/// NAME, marked "(not built)" when no build is cached; its tooltip is the recipe's description
/// and path. currentRecipe() is the chosen NAME.
class ImageTemplateBox : public QComboBox
{
    Q_OBJECT
public:
    explicit ImageTemplateBox(QWidget* parent = nullptr);

    QString currentRecipe() const;
    /// Chooses `name`; a name without a recipe is added as an item of its own, so that a
    /// workspace made from a recipe that is gone still shows it.
    void setCurrentRecipe(const QString& name);
    /// Reads the recipe folders and the image cache again.
    void reload();
};

} // namespace sbw

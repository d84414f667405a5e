#pragma once

#include "image/ImageBuilder.h"

#include <QDialog>

#include <functional>

class QDialogButtonBox;
class QLabel;
class QPlainTextEdit;

namespace sbw {

/// Builds a guest image template that a run or workspace needs and is not built yet, showing
/// the builder's progress lines (window modal; the GUI stays responsive: the build is a child
/// process). Cancel stops the build and leaves the cache as it was.
class ImageBuildDialog : public QDialog
{
    Q_OBJECT
public:
    ImageBuildDialog(const ImageRecipe& recipe, QWidget* parent = nullptr);

    /// Calls `ready` at once when the template `name` has a cached build; otherwise asks the
    /// builder for it in a dialog and calls `ready` when the build has finished. A failed or
    /// cancelled build, or an unknown name, is shown to the person and `ready` is not called.
    static void ensureBuilt(QWidget* parent, const QString& name, std::function<void()> ready);

Q_SIGNALS:
    void built();

private:
    ImageBuilder m_builder;
    QLabel* m_status;
    QPlainTextEdit* m_log;
    QDialogButtonBox* m_buttons;
};

} // namespace sbw

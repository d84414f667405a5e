#include "image/ImageBuildDialog.h"

#include "base/DataPaths.h"
#include "base/VisibleText.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace sbw {

ImageBuildDialog::ImageBuildDialog(const ImageRecipe& recipe, QWidget* parent)
    : QDialog(parent), m_status(new QLabel(this)), m_log(new QPlainTextEdit(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Building image %1").arg(recipe.name));
    setWindowModality(Qt::WindowModal);
    m_status->setWordWrap(true);
    m_status->setText(tr("The image template <b>%1</b> is built once from Debian packages; this "
                         "takes one to a few minutes.").arg(recipe.name.toHtmlEscaped()));
    m_log->setReadOnly(true);
    m_log->setObjectName(QStringLiteral("imageBuildLog"));
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setMinimumSize(560, 220);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_log);
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(&m_builder, &ImageBuilder::line, this,
            [this](const QString& text) { m_log->appendPlainText(makeVisible(text)); });
    connect(&m_builder, &ImageBuilder::finished, this, [this, recipe](const Expected<void>& result) {
        if (result) {
            Q_EMIT built();
            accept();
            return;
        }
        m_status->setText(tr("Building %1 failed: %2").arg(recipe.name.toHtmlEscaped(), makeVisible(result.error().message).toHtmlEscaped()));
        m_buttons->setStandardButtons(QDialogButtonBox::Close);
    });
    m_builder.start(recipe);
}

void ImageBuildDialog::ensureBuilt(QWidget* parent, const QString& name, std::function<void()> ready)
{
    if (QFileInfo::exists(paths::imagesDir() + QLatin1Char('/') + name + QLatin1String("/manifest.json"))) {
        ready();
        return;
    }
    auto recipe = ImageRecipe::find(name);
    if (!recipe) {
        QMessageBox::warning(parent, tr("No image template"), recipe.error().message);
        return;
    }
    auto* dialog = new ImageBuildDialog(recipe.value(), parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ImageBuildDialog::built, dialog, [ready = std::move(ready)] { ready(); });
    dialog->show();
}

} // namespace sbw

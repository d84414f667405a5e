#include "run/ArtifactsView.h"

#include "base/VisibleText.h"
#include "files/FilePreview.h"
#include "widgets/CsvTableModel.h"

#include <QDesktopServices>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPixmap>
#include <QPushButton>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

namespace sbw {
namespace {

bool hasSuffix(const QString& name, std::initializer_list<const char*> suffixes)
{
    for (const char* suffix : suffixes) {
        if (name.endsWith(QLatin1String(suffix), Qt::CaseInsensitive))
            return true;
    }
    return false;
}

QByteArray readSmallFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || file.size() > ArtifactsView::kMaxPreviewBytes)
        return {};
    return file.readAll();
}

} // namespace

ArtifactsView::ArtifactsView(QWidget* parent)
    : QWidget(parent), m_title(new QLabel(this)), m_note(new QLabel(this)), m_blocks(new QWidget(this))
{
    m_title->setTextFormat(Qt::PlainText);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_note->setObjectName(QStringLiteral("artifactsNote"));
    m_note->setTextFormat(Qt::PlainText);
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note->hide();
    m_blocksLayout = new QVBoxLayout(m_blocks);
    m_blocksLayout->setContentsMargins(0, 0, 0, 0);
    m_blocksLayout->setSpacing(12);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_note);
    layout->addWidget(m_blocks);
    layout->addStretch(1);
}

void ArtifactsView::clear()
{
    setArtifacts({}, {}, {});
}

void ArtifactsView::setArtifacts(const QList<RunArtifact>& artifacts, const QString& note, const QString& title)
{
    m_artifacts = artifacts;
    m_noteText = note;
    while (QLayoutItem* item = m_blocksLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_title->setText(title);
    m_title->setVisible(!title.isEmpty());
    m_note->setText(makeVisible(note));
    m_note->setVisible(!note.isEmpty());
    for (const RunArtifact& artifact : artifacts)
        m_blocksLayout->addWidget(makeBlock(artifact));
}

QWidget* ArtifactsView::makeBlock(const RunArtifact& artifact)
{
    auto* block = new QWidget(m_blocks);
    block->setObjectName(QStringLiteral("artifact"));
    block->setProperty("artifactName", artifact.name);
    auto* layout = new QVBoxLayout(block);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* header = new QHBoxLayout;
    auto* caption = new QLabel(tr("%1 · %2").arg(makeVisible(artifact.name), byteSizeText(artifact.size)), block);
    caption->setTextFormat(Qt::PlainText);
    caption->setToolTip(artifact.hostPath);
    auto* open = new QPushButton(tr("Open"), block);
    open->setObjectName(QStringLiteral("openArtifact"));
    open->setToolTip(tr("Open with the desktop's application for this kind of file"));
    auto* save = new QPushButton(tr("Save As…"), block);
    save->setObjectName(QStringLiteral("saveArtifact"));
    connect(open, &QPushButton::clicked, this,
            [path = artifact.hostPath] { QDesktopServices::openUrl(QUrl::fromLocalFile(path)); });
    connect(save, &QPushButton::clicked, this, [this, artifact] { saveAs(artifact); });
    header->addWidget(caption, 1);
    header->addWidget(open);
    header->addWidget(save);
    layout->addLayout(header);

    const bool image = hasSuffix(artifact.name, {".png", ".jpg", ".jpeg", ".svg"});
    const bool csv = hasSuffix(artifact.name, {".csv"});
    if (!image && !csv)
        return block;
    const QByteArray bytes = readSmallFile(artifact.hostPath);
    if (bytes.isEmpty())
        return block;
    if (image) {
        const QImage picture = FilePreview::decodeImage(artifact.name, bytes);
        if (picture.isNull())
            return block;
        auto* label = new QLabel(block);
        label->setObjectName(QStringLiteral("artifactImage"));
        const QImage shown = picture.width() > kMaxImageWidth
                                 ? picture.scaledToWidth(kMaxImageWidth, Qt::SmoothTransformation)
                                 : picture;
        label->setPixmap(QPixmap::fromImage(shown));
        label->setToolTip(tr("%1 × %2 px").arg(picture.width()).arg(picture.height()));
        layout->addWidget(label, 0, Qt::AlignLeft);
    } else {
        auto* table = new QTableView(block);
        table->setObjectName(QStringLiteral("artifactTable"));
        auto* model = new CsvTableModel(bytes, table);
        table->setModel(model);
        table->setEditTriggers(QAbstractItemView::NoEditTriggers);
        table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        // Up to 12 rows in view; the table scrolls for more.
        const int rows = std::min(model->rowCount(), 12);
        table->setMinimumHeight(table->horizontalHeader()->sizeHint().height()
                                + rows * table->verticalHeader()->defaultSectionSize() + 2 * table->frameWidth() + 4);
        layout->addWidget(table);
        if (model->isTruncated())
            layout->addWidget(new QLabel(tr("Only the first %1 rows are shown.").arg(CsvTableModel::kMaxRows), block));
    }
    return block;
}

void ArtifactsView::saveAs(const RunArtifact& artifact)
{
    const QString target = QFileDialog::getSaveFileName(this, tr("Save %1").arg(makeVisible(artifact.name)),
                                                        QFileInfo(artifact.name).fileName());
    if (target.isEmpty())
        return;
    QFile::remove(target);
    if (!QFile::copy(artifact.hostPath, target))
        QMessageBox::warning(this, tr("Save As"), tr("Cannot copy %1 to %2.").arg(artifact.hostPath, target));
}

} // namespace sbw

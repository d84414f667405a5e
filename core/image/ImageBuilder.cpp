#include "image/ImageBuilder.h"

#include "base/DataPaths.h"

#include <QFileInfo>

namespace sbw {
namespace {

QString builderScript()
{
    return paths::guestBuilderDir() + QLatin1String("/build-image.sh");
}

} // namespace

QString imageStateName(ImageState state)
{
    switch (state) {
    case ImageState::NotBuilt:
        return QStringLiteral("not built");
    case ImageState::Outdated:
        return QStringLiteral("outdated");
    case ImageState::Built:
        return QStringLiteral("built");
    }
    return {};
}

ImageBuilder::ImageBuilder(QObject* parent) : QObject(parent)
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    connect(&m_process, &QProcess::readyReadStandardOutput, this, &ImageBuilder::readLines);
    connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        readLines();
        if (!m_pending.isEmpty()) {
            Q_EMIT line(QString::fromUtf8(m_pending));
            m_pending.clear();
        }
        if (status == QProcess::NormalExit && exitCode == 0) {
            Q_EMIT finished({});
            return;
        }
        Q_EMIT finished(makeError(
            !m_lastError.isEmpty() ? m_lastError
            : status == QProcess::CrashExit
                ? QStringLiteral("the image builder was killed")
                : QStringLiteral("the image builder failed with exit status %1").arg(exitCode)));
    });
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            Q_EMIT finished(makeError(QStringLiteral("cannot start %1: %2").arg(builderScript(), m_process.errorString())));
    });
}

ImageBuilder::~ImageBuilder()
{
    if (m_process.state() != QProcess::NotRunning) {
        // The builder works in a temporary folder and removes it on exit: nothing half-built
        // reaches the cache.
        m_process.terminate();
        if (!m_process.waitForFinished(10'000))
            m_process.kill();
    }
}

void ImageBuilder::start(const ImageRecipe& recipe)
{
    if (isRunning()) {
        Q_EMIT finished(makeError(QStringLiteral("an image is already being built")));
        return;
    }
    m_pending.clear();
    m_lastError.clear();
    m_process.start(QStringLiteral("bash"), {builderScript(), recipe.path});
}

bool ImageBuilder::isRunning() const
{
    return m_process.state() != QProcess::NotRunning;
}

void ImageBuilder::readLines()
{
    m_pending += m_process.readAllStandardOutput();
    qsizetype end;
    while ((end = m_pending.indexOf('\n')) >= 0) {
        const QString text = QString::fromUtf8(m_pending.left(end));
        m_pending.remove(0, end + 1);
        if (text.startsWith(QLatin1String("build-image: error: ")))
            m_lastError = text.mid(int(qstrlen("build-image: error: ")));
        Q_EMIT line(text);
    }
}

Expected<QString> ImageBuilder::hashOf(const ImageRecipe& recipe)
{
    QProcess process;
    process.start(QStringLiteral("bash"), {builderScript(), QStringLiteral("--hash"), recipe.path});
    if (!process.waitForFinished(30'000) || process.exitStatus() != QProcess::NormalExit)
        return makeError(QStringLiteral("cannot run %1 --hash: %2").arg(builderScript(), process.errorString()));
    const QString out = QString::fromUtf8(process.readAllStandardOutput()).trimmed();
    if (process.exitCode() != 0) {
        QString message = QString::fromUtf8(process.readAllStandardError()).trimmed();
        message.remove(QStringLiteral("build-image: error: "));
        return makeError(message.isEmpty() ? QStringLiteral("the image builder failed") : message);
    }
    return out;
}

QString ImageBuilder::builtHash(const QString& name)
{
    const QFileInfo link(paths::imagesDir() + QLatin1Char('/') + name);
    if (!link.isSymLink() || !QFileInfo::exists(link.filePath() + QLatin1String("/manifest.json")))
        return {};
    return QFileInfo(link.symLinkTarget()).fileName();
}

Expected<ImageState> ImageBuilder::stateOf(const ImageRecipe& recipe)
{
    const QString built = builtHash(recipe.name);
    if (built.isEmpty())
        return ImageState::NotBuilt;
    auto hash = hashOf(recipe);
    if (!hash)
        return hash.error();
    return hash.value() == built ? ImageState::Built : ImageState::Outdated;
}

} // namespace sbw

#pragma once

#include "base/Expected.h"
#include "image/ImageRecipe.h"

#include <QObject>
#include <QProcess>
#include <QString>

namespace sbw {

/// Whether a recipe's image is in the cache (paths::imagesDir()).
enum class ImageState
{
    NotBuilt, ///< no build of this recipe name
    Outdated, ///< built, but the recipe or the builder changed since (another hash)
    Built,    ///< the cached build matches the recipe
};
QString imageStateName(ImageState state); ///< "not built", "outdated", "built"

/// Builds guest images by running the project's builder, packaging/guest/build-image.sh
/// (bash, in paths::guestBuilderDir()), as a child process, without blocking the caller's
/// event loop. A build takes one to a few minutes; one already in the cache takes a second.
class ImageBuilder : public QObject
{
    Q_OBJECT
public:
    explicit ImageBuilder(QObject* parent = nullptr);
    ~ImageBuilder() override; ///< kills a build still running; the cache stays unchanged

    /// Starts building `recipe`. Progress arrives as line(), the end as finished(). A second
    /// start() while building reports finished(false, ...) for the new request only.
    void start(const ImageRecipe& recipe);
    bool isRunning() const;

    /// The image hash the builder would give `recipe` (16 hex digits), from
    /// `build-image.sh --hash` (about 50 ms). Errors: the builder's message.
    static Expected<QString> hashOf(const ImageRecipe& recipe);
    /// The hash of the cached build that images/<name> points at; empty if none.
    static QString builtHash(const QString& name);
    /// builtHash() compared with hashOf().
    static Expected<ImageState> stateOf(const ImageRecipe& recipe);

Q_SIGNALS:
    /// One line the builder printed (stdout or stderr), without the line end, e.g.
    /// "[1/5] bootstrapping root filesystem (mmdebstrap, root mode)…".
    void line(const QString& text);
    /// The build ended. Its error is the builder's last error line, or why it could not start.
    void finished(const sbw::Expected<void>& result);

private:
    void readLines();

    QProcess m_process;
    QByteArray m_pending; ///< bytes after the last line end
    QString m_lastError;  ///< last "build-image: error: ..." line
};

} // namespace sbw

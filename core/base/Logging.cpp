#include "base/Logging.h"

#include "base/DataPaths.h"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>

Q_LOGGING_CATEGORY(lcVirt, "sbw.virt", QtInfoMsg)
Q_LOGGING_CATEGORY(lcChannel, "sbw.channel", QtInfoMsg)
Q_LOGGING_CATEGORY(lcRun, "sbw.run", QtInfoMsg)
Q_LOGGING_CATEGORY(lcLog, "sbw.log", QtInfoMsg)

namespace sbw {
namespace {

spdlog::level::level_enum levelOf(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return spdlog::level::debug;
    case QtInfoMsg:
        return spdlog::level::info;
    case QtWarningMsg:
        return spdlog::level::warn;
    case QtCriticalMsg:
        return spdlog::level::err;
    case QtFatalMsg:
        return spdlog::level::critical;
    }
    return spdlog::level::info;
}

void routeToSpdlog(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    const QByteArray text = message.toUtf8();
    spdlog::log(levelOf(type), "[{}] {}", context.category ? context.category : "default",
                std::string_view(text.constData(), size_t(text.size())));
    if (type == QtFatalMsg) {
        spdlog::shutdown();
        std::abort();
    }
}

} // namespace

QString initLogging(const QString& program, bool toStderr)
{
    std::vector<spdlog::sink_ptr> sinks;
    QString file;
    if (paths::ensureDir(paths::logDir())) {
        file = paths::logDir() + QLatin1Char('/') + program + QLatin1String(".log");
        constexpr size_t kMaxBytes = 5 * 1024 * 1024;
        constexpr size_t kMaxFiles = 5;
        auto fileSink = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
            file.toStdString(), kMaxBytes, kMaxFiles);
        fileSink->set_level(spdlog::level::debug);
        sinks.push_back(fileSink);
    }
    if (toStderr || sinks.empty()) {
        auto errSink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
        errSink->set_level(spdlog::level::warn);
        errSink->set_pattern("%n: %v");
        sinks.push_back(errSink);
    }
    auto logger = std::make_shared<spdlog::logger>(program.toStdString(), sinks.begin(), sinks.end());
    logger->set_level(spdlog::level::debug);
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
    qInstallMessageHandler(routeToSpdlog);
    return file;
}

} // namespace sbw

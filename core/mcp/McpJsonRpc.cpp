#include "mcp/McpJsonRpc.h"

namespace sbw::mcp {

const QStringList& supportedProtocolVersions()
{
    static const QStringList versions{QStringLiteral("2025-06-18"), QStringLiteral("2025-03-26"),
                                      QStringLiteral("2024-11-05")};
    return versions;
}

QString negotiateProtocolVersion(const QString& requested)
{
    return supportedProtocolVersions().contains(requested) ? requested
                                                           : supportedProtocolVersions().constFirst();
}

QJsonObject resultMessage(const QJsonValue& id, const QJsonObject& result)
{
    return {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id},
            {QStringLiteral("result"), result}};
}

QJsonObject errorMessage(const QJsonValue& id, int code, const QString& message)
{
    return {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), id.isUndefined() ? QJsonValue(QJsonValue::Null) : id},
            {QStringLiteral("error"),
             QJsonObject{{QStringLiteral("code"), code}, {QStringLiteral("message"), message}}}};
}

QJsonObject errorMessage(const QJsonValue& id, int code, const QString& message, const QJsonObject& data)
{
    QJsonObject answer = errorMessage(id, code, message);
    QJsonObject error = answer.value(QLatin1String("error")).toObject();
    error.insert(QStringLiteral("data"), data);
    answer.insert(QStringLiteral("error"), error);
    return answer;
}

bool isRequest(const QJsonValue& message)
{
    const QJsonObject object = message.toObject();
    return message.isObject() && object.value(QLatin1String("method")).isString() &&
           object.contains(QLatin1String("id"));
}

bool isNotification(const QJsonValue& message)
{
    const QJsonObject object = message.toObject();
    return message.isObject() && object.value(QLatin1String("method")).isString() &&
           !object.contains(QLatin1String("id"));
}

} // namespace sbw::mcp

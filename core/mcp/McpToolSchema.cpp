#include "mcp/McpToolSchema.h"

#include <cmath>

namespace sbw::mcp {

QJsonObject objectSchema(const QJsonObject& properties, const QStringList& required)
{
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("properties"), properties}};
    if (!required.isEmpty())
        schema.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
    return schema;
}

QJsonObject stringSchema(const QString& description)
{
    return {{QStringLiteral("type"), QStringLiteral("string")}, {QStringLiteral("description"), description}};
}

QJsonObject integerSchema(const QString& description, std::optional<int> minimum, std::optional<int> maximum)
{
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("integer")},
                       {QStringLiteral("description"), description}};
    if (minimum)
        schema.insert(QStringLiteral("minimum"), *minimum);
    if (maximum)
        schema.insert(QStringLiteral("maximum"), *maximum);
    return schema;
}

QJsonObject nullableIntegerSchema(const QString& description)
{
    return {{QStringLiteral("type"), QJsonArray{QStringLiteral("integer"), QStringLiteral("null")}},
            {QStringLiteral("description"), description}};
}

QJsonObject booleanSchema(const QString& description)
{
    return {{QStringLiteral("type"), QStringLiteral("boolean")}, {QStringLiteral("description"), description}};
}

QJsonObject enumSchema(const QString& description, const QStringList& values)
{
    return {{QStringLiteral("type"), QStringLiteral("string")},
            {QStringLiteral("enum"), QJsonArray::fromStringList(values)},
            {QStringLiteral("description"), description}};
}

Expected<QString> Arguments::requiredString(const QString& name) const
{
    if (!m_arguments.contains(name))
        return makeError(QStringLiteral("%1 is required").arg(name));
    auto value = string(name, {});
    if (value && value.value().isEmpty())
        return makeError(QStringLiteral("%1 must not be empty").arg(name));
    return value;
}

Expected<QString> Arguments::string(const QString& name, const QString& fallback) const
{
    const QJsonValue value = m_arguments.value(name);
    if (value.isUndefined() || value.isNull())
        return fallback;
    if (!value.isString())
        return makeError(QStringLiteral("%1 must be a string").arg(name));
    return value.toString();
}

Expected<int> Arguments::integer(const QString& name, int fallback, int minimum, int maximum) const
{
    const QJsonValue value = m_arguments.value(name);
    if (value.isUndefined() || value.isNull())
        return fallback;
    const double number = value.toDouble(std::nan(""));
    if (!value.isDouble() || number != std::floor(number) || number < minimum || number > maximum)
        return makeError(QStringLiteral("%1 must be a whole number from %2 to %3").arg(name).arg(minimum).arg(maximum));
    return int(number);
}

Expected<bool> Arguments::boolean(const QString& name, bool fallback) const
{
    const QJsonValue value = m_arguments.value(name);
    if (value.isUndefined() || value.isNull())
        return fallback;
    if (!value.isBool())
        return makeError(QStringLiteral("%1 must be true or false").arg(name));
    return value.toBool();
}

Expected<QString> Arguments::choice(const QString& name, const QStringList& values, const QString& fallback) const
{
    auto value = string(name, fallback);
    if (value && !values.contains(value.value()))
        return makeError(QStringLiteral("%1 must be one of: %2").arg(name, values.join(QLatin1String(", "))));
    return value;
}

QJsonObject workspaceProperty()
{
    return stringSchema(QStringLiteral("Name of the workspace (list_workspaces)."));
}

Expected<ActionRequest> workspaceRequest(const Arguments& arguments, ActionKind kind)
{
    auto name = arguments.requiredString(QStringLiteral("workspace"));
    if (!name)
        return name.error();
    ActionRequest request;
    request.kind = kind;
    request.sandbox = name.value();
    return request;
}

} // namespace sbw::mcp

#pragma once

#include "action/ActionGate.h"
#include "base/Expected.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace sbw::mcp {

/// Small builders for the JSON Schemas of tool inputs and outputs.
QJsonObject objectSchema(const QJsonObject& properties, const QStringList& required = {});
QJsonObject stringSchema(const QString& description);
QJsonObject integerSchema(const QString& description, std::optional<int> minimum = std::nullopt,
                          std::optional<int> maximum = std::nullopt);
QJsonObject nullableIntegerSchema(const QString& description);
QJsonObject booleanSchema(const QString& description);
QJsonObject enumSchema(const QString& description, const QStringList& values);

/// Reads arguments the way their schema says, with sentences naming the argument on errors.
class Arguments
{
public:
    explicit Arguments(QJsonObject arguments) : m_arguments(std::move(arguments)) {}

    /// A required non-empty string. Error: "NAME is required" / "NAME must be a string".
    Expected<QString> requiredString(const QString& name) const;
    /// A string, or `fallback` when missing. Error: "NAME must be a string".
    Expected<QString> string(const QString& name, const QString& fallback) const;
    /// A whole number in [minimum, maximum], or `fallback` when missing.
    Expected<int> integer(const QString& name, int fallback, int minimum, int maximum) const;
    Expected<bool> boolean(const QString& name, bool fallback) const;
    /// A string of `values`, or `fallback` when missing.
    Expected<QString> choice(const QString& name, const QStringList& values, const QString& fallback) const;

    const QJsonObject& json() const { return m_arguments; }

private:
    QJsonObject m_arguments;
};

/// The `workspace` argument every tool on one workspace takes.
QJsonObject workspaceProperty();
/// The request of a tool on one workspace, from its `workspace` argument.
Expected<ActionRequest> workspaceRequest(const Arguments& arguments, ActionKind kind);

} // namespace sbw::mcp

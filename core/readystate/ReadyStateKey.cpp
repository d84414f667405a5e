#include "readystate/ReadyStateKey.h"

#include <QCryptographicHash>
#include <QStringList>

namespace sbw {
namespace {

/// Bumped when the domains runs get change shape (devices, their addresses): the old states'
/// memory would not load into the new shape.
constexpr int kDomainShapeVersion = 2;

} // namespace

QString readyStateName(const ReadyStateInputs& inputs)
{
    const QStringList fields{QString::number(kDomainShapeVersion),
                             QString::number(inputs.memoryMiB),
                             QString::number(inputs.vcpus),
                             QString::number(inputs.cpuSharePercent),
                             QString::number(inputs.diskBytes),
                             inputs.kvm ? QStringLiteral("kvm") : QStringLiteral("tcg"),
                             inputs.clientKey,
                             QString::number(inputs.libvirtVersion),
                             QString::number(inputs.hypervisorVersion)};
    const QByteArray digest = QCryptographicHash::hash(fields.join(QLatin1Char('\n')).toUtf8(), QCryptographicHash::Sha256);
    return QStringLiteral("sbw-state-%1-%2").arg(inputs.buildId, QString::fromLatin1(digest.toHex().left(16)));
}

QString readyStatePrefix(const QString& recipeHash)
{
    return QStringLiteral("sbw-state-%1-").arg(recipeHash);
}

} // namespace sbw

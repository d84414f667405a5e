#include "image/GuestImage.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sbw {

Expected<GuestImage> GuestImage::load(const QString& imagesDir, const QString& recipe)
{
    if (recipe.isEmpty() || recipe.contains(QLatin1Char('/')))
        return makeError(QStringLiteral("'%1' is not an image name: give a recipe name such as "
                                        "minimal").arg(recipe));
    const QString link = imagesDir + QLatin1Char('/') + recipe;
    QFile file(link + QLatin1String("/manifest.json"));
    if (!file.exists()) {
        return makeError(QStringLiteral("guest image '%1' is not built yet (no %2); build it with "
                                        "sbw image build %1 (sbw image list shows the recipes)")
                             .arg(recipe, file.fileName()));
    }
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("cannot read %1: %2").arg(file.fileName(), file.errorString()));
    QJsonParseError parseError;
    const QJsonObject json = QJsonDocument::fromJson(file.readAll(), &parseError).object();
    if (parseError.error != QJsonParseError::NoError)
        return makeError(QStringLiteral("%1 is not valid JSON: %2")
                             .arg(file.fileName(), parseError.errorString()));

    GuestImage image;
    image.directory = QFileInfo(link).canonicalFilePath();
    const auto path = [&](const char* key) {
        const QString name = json.value(QLatin1String(key)).toString();
        return name.isEmpty() ? QString() : image.directory + QLatin1Char('/') + name;
    };
    image.recipe = json.value(QLatin1String("recipe")).toString();
    image.hash = json.value(QLatin1String("hash")).toString();
    image.kernel = path("kernel");
    image.initrd = path("initrd");
    image.disk = path("disk");
    image.diskFormat = json.value(QLatin1String("disk_format")).toString(QStringLiteral("qcow2"));
    image.diskVirtualSize = json.value(QLatin1String("disk_virtual_size")).toInteger();
    image.cmdline = json.value(QLatin1String("cmdline")).toString();
    image.hostKey = json.value(QLatin1String("host_key")).toString();
    image.sshPort = json.value(QLatin1String("ssh_port")).toString(QStringLiteral("org.sbw.ssh.0"));
    for (const QJsonValue& port : json.value(QLatin1String("ssh_ports")).toArray())
        image.sshPorts << port.toString();
    if (image.sshPorts.isEmpty()) // built when guests served one SSH port
        image.sshPorts = {image.sshPort};
    image.agentPort =
        json.value(QLatin1String("agent_port")).toString(QStringLiteral("org.qemu.guest_agent.0"));

    const QByteArray buildStamp = image.hostKey.toUtf8() + '\n' + json.value(QLatin1String("built")).toString().toUtf8();
    image.buildId = image.hash + QLatin1Char('-')
                    + QString::fromLatin1(QCryptographicHash::hash(buildStamp, QCryptographicHash::Sha256).toHex().left(8));
    if (image.hash.isEmpty() || image.hostKey.isEmpty() || image.cmdline.isEmpty()
        || image.diskVirtualSize <= 0)
        return makeError(QStringLiteral("%1 lacks hash, host_key, cmdline or disk_virtual_size; "
                                        "rebuild the image")
                             .arg(file.fileName()));
    for (const QString& required : {image.kernel, image.initrd, image.disk}) {
        if (required.isEmpty() || !QFileInfo::exists(required))
            return makeError(QStringLiteral("guest image '%1' is incomplete: %2 is missing; "
                                            "rebuild it with sbw image build %1")
                                 .arg(recipe, required.isEmpty() ? file.fileName() : required));
    }
    return image;
}

} // namespace sbw

#include "guest/ClientKey.h"

#include "base/DataPaths.h"
#include "base/Logging.h"

#include <QFile>

#include <libssh/libssh.h>

namespace sbw {

ClientKey::ClientKey(ssh_key key, QString kernelValue) : m_key(key), m_kernelValue(std::move(kernelValue)) {}

ClientKey::~ClientKey() { ssh_key_free(m_key); }

Expected<std::shared_ptr<ClientKey>> ClientKey::loadOrCreate(const QString& directory)
{
    if (!paths::ensureDir(directory))
        return makeError(QStringLiteral("cannot create %1").arg(directory));
    const QString privatePath = directory + QLatin1String("/id_ed25519");
    const QByteArray privateFile = QFile::encodeName(privatePath);
    ssh_key key = nullptr;
    if (!QFile::exists(privatePath)) {
        if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK)
            return makeError(QStringLiteral("cannot generate an Ed25519 key"));
        if (ssh_pki_export_privkey_file(key, nullptr, nullptr, nullptr, privateFile.constData())
            != SSH_OK) {
            ssh_key_free(key);
            return makeError(QStringLiteral("cannot write %1").arg(privatePath));
        }
        QFile::setPermissions(privatePath, QFile::ReadOwner | QFile::WriteOwner);
        qCInfo(lcChannel) << "generated client key" << privatePath;
    } else if (ssh_pki_import_privkey_file(privateFile.constData(), nullptr, nullptr, nullptr, &key)
               != SSH_OK) {
        return makeError(QStringLiteral("cannot read the client key %1; delete it to make a new one")
                             .arg(privatePath));
    }

    char* base64 = nullptr;
    if (ssh_pki_export_pubkey_base64(key, &base64) != SSH_OK) {
        ssh_key_free(key);
        return makeError(QStringLiteral("cannot export the public client key"));
    }
    const QString type = QString::fromLatin1(ssh_key_type_to_char(ssh_key_type(key)));
    const QString publicLine = type + QLatin1Char(' ') + QString::fromLatin1(base64);
    const QString kernelValue = type + QLatin1Char(':') + QString::fromLatin1(base64);
    ssh_string_free_char(base64);

    QFile pub(privatePath + QLatin1String(".pub"));
    if (!pub.exists() && pub.open(QIODevice::WriteOnly))
        pub.write(publicLine.toLatin1() + " sandbox-workbench\n");
    return std::shared_ptr<ClientKey>(new ClientKey(key, kernelValue));
}

} // namespace sbw

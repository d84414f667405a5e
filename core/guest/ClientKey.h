#pragma once

#include "base/Expected.h"

#include <QString>

#include <memory>

struct ssh_key_struct;

namespace sbw {

/// The per-user SSH client key with which the host logs in to its guests: an Ed25519 key pair
/// at `<dataDir>/ssh/id_ed25519` (private, mode 0600) and `.pub`, generated with libssh at first
/// use and never part of any image. Guests learn the public half from the kernel command line
/// parameter `sbw.key=TYPE:BASE64` (see packaging/guest/README.md).
class ClientKey
{
public:
    /// Loads the key from `directory`, generating it first if it does not exist. Errors:
    /// folder not writable, unreadable or corrupt key file.
    static Expected<std::shared_ptr<ClientKey>> loadOrCreate(const QString& directory);
    ~ClientKey();

    ssh_key_struct* privateKey() const { return m_key; }
    /// "ssh-ed25519:AAAA…", the value of the sbw.key kernel parameter.
    QString kernelParameterValue() const { return m_kernelValue; }

private:
    ClientKey(ssh_key_struct* key, QString kernelValue);
    ssh_key_struct* m_key;
    QString m_kernelValue;
};

} // namespace sbw

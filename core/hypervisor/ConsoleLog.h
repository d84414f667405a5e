#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QFile>
#include <QObject>
#include <QString>

class QFileSystemWatcher;
typedef struct _virConnect* virConnectPtr;

namespace sbw {

/// The log of a domain's serial console: libvirt's <log file=… append='off'/> on the serial
/// port, which virtlogd writes on the daemon's host from each start of the domain's QEMU, with
/// or without a client on the console. The workbench reads it only on a local connection;
/// see ARCHITECTURE.md.
///
/// Follows the file: open() emits what it holds, then received() as the guest writes more
/// (inotify on the file and its folder, through QFileSystemWatcher). When virtlogd rotates the
/// file (past its max_size, 2 MiB by default) the rest of the old one is read, then the new one
/// from its start. Use from one thread (normally the GUI thread).
class ConsoleLog : public QObject
{
    Q_OBJECT

public:
    explicit ConsoleLog(QObject* parent = nullptr);

    /// The console log file named in the running domain's XML; empty when it has none.
    /// Errors: no such domain, connection lost.
    static Expected<QString> pathOf(virConnectPtr conn, const QString& domainName);

    /// Reads `path` from its start (emitting received() for what is there) and follows it.
    /// Errors: the file cannot be opened ("cannot read the console log PATH: REASON").
    Expected<void> open(const QString& path);
    /// Reads what is left and stops following.
    void close();
    bool isOpen() const { return m_file.isOpen(); }

Q_SIGNALS:
    /// Bytes the guest wrote to its console, in order.
    void received(const QByteArray& bytes);

private:
    void readMore();

    QFile m_file;
    QFileSystemWatcher* m_watcher = nullptr;
};

} // namespace sbw

#pragma once

#include "base/Expected.h"
#include "base/GuestTextDecoder.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>
#include <QFile>
#include <QString>
#include <functional>
#include <memory>

namespace sbw {

/// Records one terminal tab as an asciicast v2 file, the format asciinema plays
/// (https://docs.asciinema.org/manual/asciicast/v2/): a header line
///   {"env":{"TERM":"xterm-256color"},"height":ROWS,"timestamp":UNIX_SECONDS,"version":2,"width":COLS}
/// then one JSON array per event, each on its own line:
///   [SECONDS,"o","output"]   bytes from the program
///   [SECONDS,"i","input"]    bytes typed by the user
///   [SECONDS,"r","COLSxROWS"] terminal resize
/// SECONDS counts from the start of the recording, in microsecond steps.
///
/// Event data is text: the bytes are decoded as UTF-8 with invalid bytes replaced by U+FFFD,
/// and a character cut by the end of one chunk is completed by the next (output and input are
/// decoded separately), so the file is valid JSON whatever the guest sends. Every event is
/// flushed to disk as it is written, so a crash loses nothing already shown.
class AsciicastRecorder
{
public:
    /// Seconds since the recording started.
    using Clock = std::function<double()>;

    /// paths::dataDir()/recordings/<sandbox>/<yyyyMMdd-HHmmss>-<tab>.cast, with `start` in UTC
    /// and every character of `sandbox` and `tab` outside [A-Za-z0-9._-] replaced by '_'.
    static QString defaultPath(const QString& sandbox, const QString& tab, const QDateTime& start);

    /// Creates the file (and its folders, mode 0700) and writes the header. `clock` defaults to
    /// a monotonic timer started here. Errors: the folder or file cannot be created or written.
    static Expected<std::unique_ptr<AsciicastRecorder>>
    create(const QString& path, int cols, int rows, const QDateTime& start, Clock clock = {});
    ~AsciicastRecorder();

    AsciicastRecorder(const AsciicastRecorder&) = delete;
    AsciicastRecorder& operator=(const AsciicastRecorder&) = delete;

    void output(QByteArrayView bytes);
    void input(QByteArrayView bytes);
    void resize(int cols, int rows);

    /// Writes a UTF-8 sequence left incomplete at the end as one U+FFFD and closes the file.
    /// The destructor does the same; later events are ignored.
    void finish();

    QString path() const { return m_file.fileName(); }

private:
    AsciicastRecorder(const QString& path, Clock clock);
    void writeEvent(const char* type, const QString& data);
    bool writeLine(const QByteArray& line);

    QFile m_file;
    Clock m_clock;
    GuestTextDecoder m_outputDecoder;
    GuestTextDecoder m_inputDecoder;
    bool m_failed = false;
};

} // namespace sbw

// Files a command writes where the user said (--out) or under results/: whole or not at all, and
// never over something that is not ours to replace.
//   - only a regular file is written (or replaced): a device node, FIFO, directory or socket is
//     refused (run as root, `--out /dev/null` once replaced the device node with a file);
//   - never one of `keep` (the command's database, then its inputs: spec, KernelFile, caches) nor
//     a -wal, -shm or -journal file of it, whatever path leads there (symbolic links, `..`, hard
//     links; side files sit beside the file a link leads to): `--out t.db` once replaced the
//     database, `--out t.db-shm` given `--db link.db` its shared memory;
//   - never any database (by its header) nor a -wal, -shm or -journal file beside an existing file
//     (another database's live side files: an empty -wal has no header to tell it by);
//   - temporaries a killed writer left (.NAME.tmp.PID.N of a process that is gone) are removed;
//   - atomically: a temporary file in the same directory, written, flushed to disk and renamed
//     over the target; on every failure (a full disk) the temporary is removed and the target is
//     as it was.
// Every refusal and failure is one InputError naming the path and the cause.
#pragma once
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tune {

void write_file_atomically(const std::filesystem::path& path, std::string_view text,
                           const std::vector<std::filesystem::path>& keep = {});
// The same, the file being `pieces` one after another (large data written from where it lies).
void write_file_atomically(const std::filesystem::path& path, std::span<const std::string_view> pieces,
                           const std::vector<std::filesystem::path>& keep = {});

// write_file_atomically's refusals alone, for a command to give before it does its work.
void check_output_path(const std::filesystem::path& path, const std::vector<std::filesystem::path>& keep = {});

// The `.NAME.tmp.PID.N` files in `dir` that killed writers left (their process is gone) removed, for
// NAME `name` (Names::exactly) or any NAME ending so (Names::ending: the capture files of a folder,
// whose next write may have another name). A live process's temporary is never touched.
enum class Names { exactly, ending };
void remove_dead_writers_temporaries(const std::filesystem::path& dir, std::string_view name,
                                     Names names = Names::exactly);

// Whether the file begins as a SQLite database (or its WAL file) does: refused as an output, and
// merged whole by `tune import`. It opens and closes the file: never ask it of a database this
// process has open, since closing any descriptor of a file drops every fcntl lock the process
// holds on it, SQLite's included (see store/store.h, the setup lock).
bool is_sqlite_file(const std::filesystem::path& path);

// The same file: by path once links are resolved, or by device and inode (hard links). Opens
// nothing.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// A name from stored data (a kernel name) made safe as one file-name component: letters, digits,
// '.', '-' and '_' kept, anything else '_', no leading '.', at most 100 characters ("kernel" when
// nothing is left), so a default output path never leaves its directory.
std::string safe_file_name(std::string_view name);

}  // namespace tune

#include "lb/datasets/grid_writer.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>
#include <omp.h>

#ifdef LB_HAVE_GDAL
#include <cpl_conv.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gdal.h>
#endif

#include "lb/datasets/wells.hpp"

namespace lb::datasets {

namespace {

static_assert(std::endian::native == std::endian::little, "the .npy writer writes the host's bytes as little-endian");

std::string lower_extension(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

//! The most characters one number takes in a CSV row (std::to_chars' shortest form of a
//! double is at most 24) with its separator.
constexpr std::size_t kMaxNumberChars = 32;

template <class T>
void write_csv(AtomicFile& file, const GridValues<T>& g) {
  const std::size_t nx = g.grid.nx, ny = g.grid.ny, bands = g.names.size(), points = nx * ny;
  std::string header = "x,y";
  for (const auto& name : g.names) header += "," + name;
  header += '\n';
  file.write(header);
  const std::vector<double> gx = grid_axis(g.grid.x0, g.grid.x1, nx), gy = grid_axis(g.grid.y0, g.grid.y1, ny);
  // Rows in blocks, each block formatted by one thread into its own buffer; the blocks of
  // a batch are written in order once all are formatted (2 blocks a thread: ~1 MB each).
  const std::size_t row_bytes = (2 + bands) * kMaxNumberChars;
  const std::size_t block_rows = std::max<std::size_t>(64, (std::size_t(1) << 20) / row_bytes);
  const std::size_t batch_blocks = 2 * static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  std::vector<std::vector<char>> buffers(batch_blocks, std::vector<char>(block_rows * row_bytes));
  std::vector<std::size_t> used(batch_blocks);
  for (std::size_t batch = 0; batch < points; batch += block_rows * batch_blocks) {
    const std::size_t blocks = std::min(batch_blocks, (points - batch + block_rows - 1) / block_rows);
#pragma omp parallel for schedule(dynamic)
    for (std::size_t b = 0; b < blocks; ++b) {
      char* const begin = buffers[b].data();
      char* at = begin;
      char* const end = begin + buffers[b].size();
      const std::size_t first = batch + b * block_rows, last = std::min(points, first + block_rows);
      for (std::size_t p = first; p < last; ++p) {
        at = std::to_chars(at, end, gx[p % nx]).ptr;
        *at++ = ',';
        at = std::to_chars(at, end, gy[p / nx]).ptr;
        for (std::size_t h = 0; h < bands; ++h) {
          *at++ = ',';
          at = std::to_chars(at, end, g.values[h * points + p]).ptr;
        }
        *at++ = '\n';
      }
      used[b] = static_cast<std::size_t>(at - begin);
    }
    for (std::size_t b = 0; b < blocks; ++b) file.write({buffers[b].data(), used[b]});
  }
}

template <class T>
void write_npy(AtomicFile& file, const GridValues<T>& g) {
  const std::size_t bands = g.names.size(), count = bands * g.grid.ny * g.grid.nx;
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}, {}, {}), }}",
                                 std::is_same_v<T, float> ? "<f4" : "<f8", bands, g.grid.ny, g.grid.nx);
  // Magic (6), version (2), header length (2), the dict padded with spaces and ended by a
  // newline so that the data starts at a multiple of 64 bytes (as NumPy writes it).
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string head("\x93NUMPY\x01\x00", 8);
  head += static_cast<char>(dict.size() & 0xff);
  head += static_cast<char>(dict.size() >> 8);
  file.write(head);
  file.write(dict);
  file.write({reinterpret_cast<const char*>(g.values), count * sizeof(T)});
}

#ifdef LB_HAVE_GDAL
double step_of(double lo, double hi, std::size_t n) { return n > 1 ? (hi - lo) / double(n - 1) : 0.0; }

template <class T>
void write_geotiff(AtomicFile& file, const GridValues<T>& g) {
  const std::size_t nx = g.grid.nx, ny = g.grid.ny, bands = g.names.size();
  double dx = step_of(g.grid.x0, g.grid.x1, nx), dy = step_of(g.grid.y0, g.grid.y1, ny);
  if (dx == 0.0) dx = dy != 0.0 ? dy : 1.0;  // one node along an axis: square pixels
  if (dy == 0.0) dy = dx;
  GDALAllRegister();
  GDALDriverH driver = GDALGetDriverByName("GTiff");
  if (!driver) throw InputError(fmt::format("{} '{}': GDAL has no GTiff driver", "--out", file.path()));
  // Written in memory (/vsimem), then copied into the atomic file: GDAL never touches the
  // target, so a failure leaves nothing.
  const std::string mem_path = fmt::format("/vsimem/layoutbench_{}.tif", static_cast<const void*>(&file));
  char** options = nullptr;
  options = CSLSetNameValue(options, "INTERLEAVE", "BAND");
  // Tiles pad the last row and column of tiles to 256 x 256 values (a 5 x 4 raster in one
  // tile a band is 0.5 MB): tiled only where that adds under 10 % to the file. Strips of rows
  // (GDAL's default) are sized to the data.
  constexpr std::size_t kTile = 256;
  const auto padded = [&](std::size_t n) { return double((n + kTile - 1) / kTile * kTile); };
  if (padded(nx) * padded(ny) < 1.1 * double(nx) * double(ny)) options = CSLSetNameValue(options, "TILED", "YES");
  options = CSLSetNameValue(options, "BIGTIFF", "IF_SAFER");
  GDALDatasetH ds = GDALCreate(driver, mem_path.c_str(), int(nx), int(ny), int(bands),
                               std::is_same_v<T, float> ? GDT_Float32 : GDT_Float64, options);
  CSLDestroy(options);
  if (!ds) throw InputError(fmt::format("'{}': GDAL could not create the GeoTIFF: {}", file.path(), CPLGetLastErrorMsg()));
  double transform[6] = {g.grid.x0 - dx / 2, dx, 0.0, g.grid.y1 + dy / 2, 0.0, -dy};
  bool ok = GDALSetGeoTransform(ds, transform) == CE_None;
  const std::size_t points = nx * ny;
  for (std::size_t h = 0; ok && h < bands; ++h) {
    GDALRasterBandH band = GDALGetRasterBand(ds, int(h) + 1);
    GDALSetDescription(band, g.names[h].c_str());
    // North up: raster row r is grid row ny - 1 - r (a negative line stride).
    const T* last_row = g.values + h * points + (ny - 1) * nx;
    ok = GDALRasterIOEx(band, GF_Write, 0, 0, int(nx), int(ny), const_cast<T*>(last_row), int(nx), int(ny),
                        std::is_same_v<T, float> ? GDT_Float32 : GDT_Float64, sizeof(T),
                        -static_cast<GSpacing>(nx * sizeof(T)), nullptr) == CE_None;
  }
  GDALClose(ds);
  vsi_l_offset size = 0;
  GByte* bytes = ok ? VSIGetMemFileBuffer(mem_path.c_str(), &size, FALSE) : nullptr;
  if (!bytes) {
    VSIUnlink(mem_path.c_str());
    throw InputError(fmt::format("'{}': GDAL failed writing the GeoTIFF: {}", file.path(), CPLGetLastErrorMsg()));
  }
  file.write({reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(size)});
  VSIUnlink(mem_path.c_str());
}
#endif

}  // namespace

bool geotiff_available() {
#ifdef LB_HAVE_GDAL
  return true;
#else
  return false;
#endif
}

std::string output_extension(const OutputPath& out, const std::vector<std::string>& allowed) {
  const std::string ext = lower_extension(out.path);
  for (const auto& known : allowed)
    if (ext == known) return ext;
  std::string listed;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    listed += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  throw InputError(fmt::format("{} '{}': {}: the extension picks the format; give {}", out.option, out.path,
                               ext.empty() ? "no extension" : fmt::format("unknown extension '{}'", ext), listed));
}

GridFormat grid_format_of(const OutputPath& out) {
  const std::string ext = output_extension(out, {".csv", ".npy", ".tif", ".tiff"});
  if (ext == ".npy") return GridFormat::npy;
  if (ext == ".tif" || ext == ".tiff") {
    if (!geotiff_available())
      throw InputError(fmt::format("{} '{}': GeoTIFF output needs GDAL, and this build has none: install it "
                                   "(Debian/Ubuntu: apt-get install libgdal-dev), then rebuild (cmake finds it), "
                                   "or write .npy or .csv",
                                   out.option, out.path));
    return GridFormat::geotiff;
  }
  return GridFormat::csv;
}

template <class T>
void write_grid(AtomicFile& file, GridFormat format, const GridValues<T>& g) {
  switch (format) {
    case GridFormat::csv: return write_csv(file, g);
    case GridFormat::npy: return write_npy(file, g);
    case GridFormat::geotiff:
#ifdef LB_HAVE_GDAL
      return write_geotiff(file, g);
#else
      break;
#endif
  }
  throw InputError(fmt::format("'{}': GeoTIFF output needs GDAL (libgdal-dev), which this build has none of",
                               file.path()));
}

template void write_grid(AtomicFile&, GridFormat, const GridValues<float>&);
template void write_grid(AtomicFile&, GridFormat, const GridValues<double>&);

}  // namespace lb::datasets

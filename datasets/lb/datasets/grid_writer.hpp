#pragma once
//! The one writer of gridded results (`krige`, `idw-interpolate`): the output path's
//! extension picks the format, and every format goes through AtomicFile (all or none).
//!
//!   .csv        x,y,<band names>, one grid point a line, x fastest (the grid's order).
//!               Each number in the shortest form that reads back to the same value
//!               (std::to_chars); rows formatted in parallel into large buffers.
//!   .npy        NumPy format 1.0: one C-order array of shape (bands, ny, nx), dtype '<f8'
//!               (double programs) or '<f4' (float), row iy at y0 + iy (y1 - y0) / (ny - 1):
//!               the programs' own surface-major layout, written as is. Coordinates are
//!               not stored (they are the --grid spec's).
//!   .tif/.tiff  GeoTIFF through GDAL's C API (an optional build dependency): one band per
//!               surface (its description the surface name), Float64 or Float32, north up
//!               (the first row is y1), grid nodes at pixel centres: the geotransform is
//!               (x0 - dx/2, dx, 0, y1 + dy/2, 0, -dy). No CRS (the grid spec has none).
//!               Built without GDAL, asking for it is an InputError naming libgdal-dev.
//!               Strips of rows (a file sized to the data), or 256 x 256 tiles where the
//!               padding of the last tiles adds under 10 % to the file.
//! Any other extension, or none, is an InputError listing these (never a silent CSV).

#include <cstddef>
#include <string>
#include <vector>

#include "lb/datasets/atomic_file.hpp"
#include "lb/datasets/points.hpp"

namespace lb::datasets {

enum class GridFormat { csv, npy, geotiff };

//! The lower-case extension of `out` (".csv") if it is one of `allowed`; else InputError
//! naming the option and listing them ("--out 'm.txt': unknown extension '.txt': the
//! extension picks the format; give .csv, .npy, .tif or .tiff").
std::string output_extension(const OutputPath& out, const std::vector<std::string>& allowed);

//! The format `out` asks for by its extension (case-insensitive: .csv, .npy, .tif or .tiff;
//! any other is refused by output_extension); InputError naming the option for .tif/.tiff in
//! a build without GDAL.
GridFormat grid_format_of(const OutputPath& out);

//! Whether this build writes GeoTIFF (GDAL found at build time).
bool geotiff_available();

//! Values on `grid`: names.size() bands of ny rows of nx values, band-major, x fastest, row
//! iy at y0 + iy dy (the programs' layout).
template <class T>
struct GridValues {
  const GridSpec& grid;
  const std::vector<std::string>& names;
  const T* values;
};

//! Writes `g` to `file` (not committed) in `format`.
template <class T>
void write_grid(AtomicFile& file, GridFormat format, const GridValues<T>& g);

}  // namespace lb::datasets

#pragma once
//! The one writer of gridded results (`krige`, `idw-interpolate`): the output path's
//! extension picks the format, and every format goes through AtomicFile (all or none).
//!
//!   .csv        (and any other extension, or none) x,y,<band names>, one grid point a line, x fastest (the grid's order).
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

#include <cstddef>
#include <string>
#include <vector>

#include "lb/datasets/atomic_file.hpp"
#include "lb/datasets/points.hpp"

namespace lb::datasets {

enum class GridFormat { csv, npy, geotiff };

//! The format `out` asks for by its extension (case-insensitive; CSV unless .npy, .tif or
//! .tiff); InputError naming the option for .tif/.tiff in a build without GDAL.
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

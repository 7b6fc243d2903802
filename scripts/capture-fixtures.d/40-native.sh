# shellcheck shell=bash
# Sourced by scripts/capture-fixtures.sh (uses $SRC, $OUT and run()).
# C/C++: clang errors with notes inside the standard headers, ld undefined references, UBSan, TSan,
# CMake configure errors, and a CMake project built by make and by ninja.

N="$SRC/geo"
mkdir -p "$N/src" "$N/include/geo"
cat >"$N/include/geo/point.h" <<'CPP'
#pragma once
#include <string>
#include <vector>

namespace geo {
struct Point {
  double x, y;
};

double path_length(const std::vector<Point>& pts);
std::string describe(const Point& p);
int checksum(const std::vector<int>& ids);
}  // namespace geo
CPP
cat >"$N/src/point.cpp" <<'CPP'
#include "geo/point.h"

#include <cmath>
#include <sstream>

namespace geo {
double path_length(const std::vector<Point>& pts) {
  double total = 0;
  for (size_t i = 1; i < pts.size(); ++i) total += std::hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
  return total;
}

std::string describe(const Point& p) {
  std::ostringstream out;
  out << "(" << p.x << ", " << p.y << ")";
  return out.str();
}
}  // namespace geo
CPP
cat >"$N/src/checksum.cpp" <<'CPP'
#include "geo/point.h"

namespace geo {
int checksum(const std::vector<int>& ids) {
  int acc = 1;
  for (int id : ids) acc = acc * 31 + id;  // overflows int for long id lists
  return acc;
}
}  // namespace geo
CPP
cat >"$N/src/main.cpp" <<'CPP'
#include <cstdio>
#include <vector>

#include "geo/point.h"

int main() {
  std::vector<geo::Point> route = {{0, 0}, {3, 4}, {6, 8}};
  std::printf("length %.1f\n", geo::path_length(route));
  std::vector<int> ids(12, 977);
  std::printf("checksum %d\n", geo::checksum(ids));
  return 0;
}
CPP
cat >"$N/src/route.cpp" <<'CPP'
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "geo/point.h"

namespace geo {
std::vector<Point> sorted_by_name(const std::map<std::string, Point>& named) {
  std::vector<Point> out;
  for (const auto& [name, p] : named) out.push_back(p);
  // Point has no operator<: the error surfaces deep inside <algorithm>
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace geo
CPP

if command -v clang++ >/dev/null; then
  run clang-no-operator-less-in-std-sort "$N" clang++ -std=c++17 -Iinclude -c src/route.cpp -o /dev/null
  (cd "$N" && clang++ -g -O0 -fsanitize=undefined -Iinclude src/main.cpp src/point.cpp src/checksum.cpp -o ubsan_demo) >/dev/null 2>&1
  run ubsan-signed-overflow "$N" env UBSAN_OPTIONS=print_stacktrace=1 ./ubsan_demo
fi

# ld: main.cpp calls geo::describe but the link line forgets point.cpp's object (only checksum.o is linked)
cat >"$N/src/report_main.cpp" <<'CPP'
#include <cstdio>

#include "geo/point.h"

int main() {
  geo::Point home{1.5, 2.5};
  std::printf("home is %s\n", geo::describe(home).c_str());
  std::printf("checksum %d\n", geo::checksum({1, 2, 3}));
  return 0;
}
CPP
(cd "$N" && mkdir -p build-ld && g++ -g -Iinclude -c src/report_main.cpp -o build-ld/report_main.o && g++ -g -Iinclude -c src/checksum.cpp -o build-ld/checksum.o) >/dev/null 2>&1
run ld-undefined-reference "$N" g++ -g build-ld/report_main.o build-ld/checksum.o -o build-ld/report

# TSan: two worker threads bump a shared counter without a lock
mkdir -p "$SRC/tsanq/src"
cat >"$SRC/tsanq/src/stats.h" <<'CPP'
#pragma once
struct Stats {
  long processed = 0;
};
void record(Stats& s);
CPP
cat >"$SRC/tsanq/src/stats.cpp" <<'CPP'
#include "stats.h"

void record(Stats& s) {
  s.processed++;  // no mutex: racy read-modify-write
}
CPP
cat >"$SRC/tsanq/src/worker.cpp" <<'CPP'
#include <thread>
#include <vector>

#include "stats.h"

static void drain(Stats* s, int n) {
  for (int i = 0; i < n; i++) record(*s);
}

int main() {
  Stats s;
  std::vector<std::thread> pool;
  for (int t = 0; t < 2; t++) pool.emplace_back(drain, &s, 10000);
  for (auto& th : pool) th.join();
  return s.processed == 20000 ? 0 : 1;
}
CPP
TSAN_CXX=g++
command -v clang++ >/dev/null && TSAN_CXX=clang++
(cd "$SRC/tsanq" && $TSAN_CXX -g -O1 -fsanitize=thread src/worker.cpp src/stats.cpp -o worker -lpthread) >/dev/null 2>&1
run tsan-data-race "$SRC/tsanq" env TSAN_OPTIONS=halt_on_error=1 setarch "$(uname -m)" -R ./worker

# ---- CMake: one configure error, and one compile error built with the Makefile and the Ninja generators
if command -v cmake >/dev/null; then
  mkdir -p "$SRC/geocfg"
  cat >"$SRC/geocfg/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(geocfg CXX)

set(CMAKE_CXX_STANDARD 17)

# the tile renderer draws with cairo, whose CMake package config is not installed on this machine
find_package(Cairo 1.16 REQUIRED)

add_executable(tiles src/tiles.cpp)
target_link_libraries(tiles PRIVATE Cairo::Cairo)
CMAKE
  mkdir -p "$SRC/geocfg/src"
  printf 'int main() { return 0; }\n' >"$SRC/geocfg/src/tiles.cpp"
  run cmake-configure-missing-package "$SRC/geocfg" cmake -S . -B build

  for gen in make ninja; do
    P="$SRC/geo-$gen"
    rm -rf "$P"; mkdir -p "$P"
    cp -r "$N/src" "$N/include" "$P/"
    rm -f "$P/src/route.cpp" "$P/src/report_main.cpp"
    cat >"$P/src/simplify.cpp" <<'CPP'
#include <vector>

#include "geo/point.h"

namespace geo {
// Drops points closer than `tolerance` to the previous kept point.
std::vector<Point> simplify(const std::vector<Point>& pts, double tolerance) {
  std::vector<Point> kept;
  for (const Point& p : pts) {
    if (kept.empty() || distance(kept.back(), p) > tolerance) kept.push_back(p);
  }
  return kept;
}
}  // namespace geo
CPP
    cat >"$P/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(geo CXX)
set(CMAKE_CXX_STANDARD 17)
add_library(geo src/point.cpp src/checksum.cpp src/simplify.cpp)
target_include_directories(geo PUBLIC include)
add_executable(geo_demo src/main.cpp)
target_link_libraries(geo_demo PRIVATE geo)
CMAKE
    if [ "$gen" = make ]; then
      (cd "$P" && cmake -S . -B build -G "Unix Makefiles") >/dev/null 2>&1
      run cmake-make-compile-error "$P" cmake --build build -- -j1
    elif command -v ninja >/dev/null; then
      (cd "$P" && cmake -S . -B build -G Ninja) >/dev/null 2>&1
      run cmake-ninja-compile-error "$P" cmake --build build -- -j1
    fi
  done
fi

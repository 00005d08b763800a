// The system zlib (Debian/Ubuntu: zlib1g-dev), for the sample server's gzip bodies.
#include <zlib.h>

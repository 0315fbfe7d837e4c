// SHA-256 as lower-case hex, through OpenSSL: the parameters' hash (params_sha256) and a job's
// fingerprint (net/job_fingerprint.h).
#pragma once

#include <cstddef>
#include <string>

namespace pstwin {

/// The SHA-256 of bytes[0..size) as 64 lower-case hex digits (FIPS 180-4, OpenSSL's EVP_sha256).
std::string sha256_hex(const void* bytes, std::size_t size);

}  // namespace pstwin

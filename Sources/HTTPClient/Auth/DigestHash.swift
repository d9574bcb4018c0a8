import Foundation

/// The hash functions Digest authentication names (RFC 7616 §3.2, and the IANA registry it
/// set up): MD5, SHA-256 and SHA-512/256, written here from their specifications so that every
/// platform has the same three (Linux has no CryptoKit; CryptoKit has no SHA-512/256).
///
/// They serve the protocol's challenge and response only, on short strings and, for
/// `qop=auth-int`, a body already in memory: not as general-purpose hashes.
enum DigestHash: Sendable, Hashable, CaseIterable {
    /// MD5 (RFC 1321).
    case md5
    /// SHA-256 (FIPS 180-4 §6.2).
    case sha256
    /// SHA-512/256: SHA-512 from its own initial values, cut to 256 bits (FIPS 180-4 §6.7).
    case sha512t256

    /// The digest of `bytes`.
    func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        switch self {
        case .md5: return MD5.digest(Array(bytes))
        case .sha256: return SHA256.digest(Array(bytes))
        case .sha512t256: return Array(SHA512.digest(Array(bytes), from: SHA512.initial256).prefix(32))
        }
    }

    /// The digest of `text`'s UTF-8 bytes, in lower-case hexadecimal, as Digest writes it.
    func hex(_ text: String) -> String { Self.hex(digest(Array(text.utf8))) }

    /// The digest of `bytes` in lower-case hexadecimal.
    func hex(_ bytes: some Collection<UInt8>) -> String { Self.hex(digest(bytes)) }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `message` padded to whole blocks: a 1 bit, zeros, then its length in bits in `lengthBytes`
    /// bytes, big- or little-endian (RFC 1321 §3.1-3.2, FIPS 180-4 §5.1).
    static func padded(_ message: [UInt8], blockSize: Int, lengthBytes: Int, bigEndian: Bool) -> [UInt8] {
        var padded = message
        padded.append(0x80)
        while (padded.count + lengthBytes) % blockSize != 0 { padded.append(0) }
        let bits = UInt64(message.count) &* 8
        var length = [UInt8](repeating: 0, count: lengthBytes)
        for index in 0..<8 {
            let byte = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index)))
            if bigEndian { length[lengthBytes - 1 - index] = byte } else { length[index] = byte }
        }
        padded.append(contentsOf: length)
        return padded
    }
}

/// MD5 (RFC 1321 §3).
private enum MD5 {
    /// §3.4's table: the integer part of 2^32 × |sin(i + 1)|.
    static let sines: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]
    /// §3.4's left rotations, four per round.
    static let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]

    static func digest(_ message: [UInt8]) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
        let padded = DigestHash.padded(message, blockSize: 64, lengthBytes: 8, bigEndian: false)
        var words = [UInt32](repeating: 0, count: 16)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let at = block + 4 * index
                words[index] =
                    UInt32(padded[at]) | UInt32(padded[at + 1]) << 8 | UInt32(padded[at + 2]) << 16
                    | UInt32(padded[at + 3]) << 24
            }
            var (a, b, c, d) = state
            for step in 0..<64 {
                let round = step / 16
                var f: UInt32
                let word: Int
                switch round {
                case 0:
                    f = (b & c) | (~b & d)
                    word = step
                case 1:
                    f = (d & b) | (~d & c)
                    word = (5 * step + 1) % 16
                case 2:
                    f = b ^ c ^ d
                    word = (3 * step + 5) % 16
                default:
                    f = c ^ (b | ~d)
                    word = (7 * step) % 16
                }
                f = f &+ a &+ sines[step] &+ words[word]
                a = d
                d = c
                c = b
                let shift = shifts[round * 4 + step % 4]
                b = b &+ (f << shift | f >> (32 - shift))
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
        }
        var output: [UInt8] = []
        for word in [state.0, state.1, state.2, state.3] {
            for index in 0..<4 { output.append(UInt8(truncatingIfNeeded: word >> (8 * UInt32(index)))) }
        }
        return output
    }
}

/// The SHA-2 hashes of FIPS 180-4 §6.2 and §6.4: one compression over 32-bit words (SHA-256)
/// or 64-bit words (SHA-512 and SHA-512/t), which differ only in their constants and shifts.
private struct SHA2<Word: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    /// The round constants (§4.2.2, §4.2.3).
    let constants: [Word]
    /// The rotations of Σ0 and Σ1 (§4.1.2, §4.1.3).
    let sum0: (Word, Word, Word)
    let sum1: (Word, Word, Word)
    /// The rotations and shift of σ0 and σ1.
    let sigma0: (Word, Word, Word)
    let sigma1: (Word, Word, Word)

    static var wordBytes: Int { Word.bitWidth / 8 }

    func rotate(_ value: Word, _ count: Word) -> Word { value >> count | value << (Word(Word.bitWidth) - count) }

    /// The digest of `message` from the initial values `initial`, before any truncation.
    func digest(_ message: [UInt8], from initial: [Word]) -> [UInt8] {
        let size = Self.wordBytes
        var state = initial
        // §5.1: the length takes two words; a message under 2^61 bytes fills only the last 8 bytes.
        let padded = DigestHash.padded(message, blockSize: 16 * size, lengthBytes: 2 * size, bigEndian: true)
        var schedule = [Word](repeating: 0, count: constants.count)
        for block in stride(from: 0, to: padded.count, by: 16 * size) {
            for index in 0..<16 {
                let at = block + size * index
                schedule[index] = padded[at..<(at + size)].reduce(Word(0)) { $0 << 8 | Word($1) }
            }
            for index in 16..<constants.count {
                let early = schedule[index - 15]
                let late = schedule[index - 2]
                let small0 = rotate(early, sigma0.0) ^ rotate(early, sigma0.1) ^ early >> sigma0.2
                let small1 = rotate(late, sigma1.0) ^ rotate(late, sigma1.1) ^ late >> sigma1.2
                schedule[index] = schedule[index - 16] &+ small0 &+ schedule[index - 7] &+ small1
            }
            var (a, b, c, d, e, f, g, h) = (
                state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7]
            )
            for index in 0..<constants.count {
                let big1 = rotate(e, sum1.0) ^ rotate(e, sum1.1) ^ rotate(e, sum1.2)
                let choice = (e & f) ^ (~e & g)
                let first = h &+ big1 &+ choice &+ constants[index] &+ schedule[index]
                let big0 = rotate(a, sum0.0) ^ rotate(a, sum0.1) ^ rotate(a, sum0.2)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ first, c, b, a, first &+ big0 &+ majority)
            }
            for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] = state[index] &+ value }
        }
        var output: [UInt8] = []
        for word in state {
            for index in (0..<size).reversed() { output.append(UInt8(truncatingIfNeeded: word >> (8 * index))) }
        }
        return output
    }
}

/// SHA-256 (FIPS 180-4 §6.2).
private enum SHA256 {
    /// §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    static let function = SHA2<UInt32>(
        constants: [
            0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
            0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
            0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
            0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
            0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
            0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
            0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
            0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
        ], sum0: (2, 13, 22), sum1: (6, 11, 25), sigma0: (7, 18, 3), sigma1: (17, 19, 10))
    /// §5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes.
    static let initial: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    static func digest(_ message: [UInt8]) -> [UInt8] { function.digest(message, from: initial) }
}

/// SHA-512 (FIPS 180-4 §6.4), from any initial values: SHA-512/256 is SHA-512 from its own.
private enum SHA512 {
    /// §4.2.3: the first 64 bits of the fractional parts of the cube roots of the first 80 primes.
    static let function = SHA2<UInt64>(
        constants: [
            0x428a_2f98_d728_ae22, 0x7137_4491_23ef_65cd, 0xb5c0_fbcf_ec4d_3b2f, 0xe9b5_dba5_8189_dbbc,
            0x3956_c25b_f348_b538, 0x59f1_11f1_b605_d019, 0x923f_82a4_af19_4f9b, 0xab1c_5ed5_da6d_8118,
            0xd807_aa98_a303_0242, 0x1283_5b01_4570_6fbe, 0x2431_85be_4ee4_b28c, 0x550c_7dc3_d5ff_b4e2,
            0x72be_5d74_f27b_896f, 0x80de_b1fe_3b16_96b1, 0x9bdc_06a7_25c7_1235, 0xc19b_f174_cf69_2694,
            0xe49b_69c1_9ef1_4ad2, 0xefbe_4786_384f_25e3, 0x0fc1_9dc6_8b8c_d5b5, 0x240c_a1cc_77ac_9c65,
            0x2de9_2c6f_592b_0275, 0x4a74_84aa_6ea6_e483, 0x5cb0_a9dc_bd41_fbd4, 0x76f9_88da_8311_53b5,
            0x983e_5152_ee66_dfab, 0xa831_c66d_2db4_3210, 0xb003_27c8_98fb_213f, 0xbf59_7fc7_beef_0ee4,
            0xc6e0_0bf3_3da8_8fc2, 0xd5a7_9147_930a_a725, 0x06ca_6351_e003_826f, 0x1429_2967_0a0e_6e70,
            0x27b7_0a85_46d2_2ffc, 0x2e1b_2138_5c26_c926, 0x4d2c_6dfc_5ac4_2aed, 0x5338_0d13_9d95_b3df,
            0x650a_7354_8baf_63de, 0x766a_0abb_3c77_b2a8, 0x81c2_c92e_47ed_aee6, 0x9272_2c85_1482_353b,
            0xa2bf_e8a1_4cf1_0364, 0xa81a_664b_bc42_3001, 0xc24b_8b70_d0f8_9791, 0xc76c_51a3_0654_be30,
            0xd192_e819_d6ef_5218, 0xd699_0624_5565_a910, 0xf40e_3585_5771_202a, 0x106a_a070_32bb_d1b8,
            0x19a4_c116_b8d2_d0c8, 0x1e37_6c08_5141_ab53, 0x2748_774c_df8e_eb99, 0x34b0_bcb5_e19b_48a8,
            0x391c_0cb3_c5c9_5a63, 0x4ed8_aa4a_e341_8acb, 0x5b9c_ca4f_7763_e373, 0x682e_6ff3_d6b2_b8a3,
            0x748f_82ee_5def_b2fc, 0x78a5_636f_4317_2f60, 0x84c8_7814_a1f0_ab72, 0x8cc7_0208_1a64_39ec,
            0x90be_fffa_2363_1e28, 0xa450_6ceb_de82_bde9, 0xbef9_a3f7_b2c6_7915, 0xc671_78f2_e372_532b,
            0xca27_3ece_ea26_619c, 0xd186_b8c7_21c0_c207, 0xeada_7dd6_cde0_eb1e, 0xf57d_4f7f_ee6e_d178,
            0x06f0_67aa_7217_6fba, 0x0a63_7dc5_a2c8_98a6, 0x113f_9804_bef9_0dae, 0x1b71_0b35_131c_471b,
            0x28db_77f5_2304_7d84, 0x32ca_ab7b_40c7_2493, 0x3c9e_be0a_15c9_bebc, 0x431d_67c4_9c10_0d4c,
            0x4cc5_d4be_cb3e_42b6, 0x597f_299c_fc65_7e2a, 0x5fcb_6fab_3ad6_faec, 0x6c44_198c_4a47_5817,
        ], sum0: (28, 34, 39), sum1: (14, 18, 41), sigma0: (1, 8, 7), sigma1: (19, 61, 6))
    /// §5.3.5: the first 64 bits of the fractional parts of the square roots of the first 8 primes.
    static let initial512: [UInt64] = [
        0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
        0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179,
    ]
    /// §5.3.6: SHA-512/256's initial values, made by SHA-512 from `initial512` XOR 0xa5a5… over
    /// the string "SHA-512/256".
    static let initial256: [UInt64] = {
        let start = initial512.map { $0 ^ 0xa5a5_a5a5_a5a5_a5a5 }
        let bytes = digest(Array("SHA-512/256".utf8), from: start)
        return (0..<8).map { word in
            bytes[(8 * word)..<(8 * word + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }()

    static func digest(_ message: [UInt8], from initial: [UInt64]) -> [UInt8] {
        function.digest(message, from: initial)
    }
}

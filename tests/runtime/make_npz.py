"""make_npz.py -- writes NumPy .npz archives without NumPy, for the runtime's .npz reader tests.

    make_npz.py OUT.npz [--deflate | --bzip2] [--zip64] [--fortran NAME] NAME:DTYPE:SHAPE:VALUES ...

Each array: DTYPE a .npy descr ('<i8', '<f4', '>i8', '|u1', ...), SHAPE comma-separated ('2,3';
'' for a scalar), VALUES comma-separated numbers ('nan' allowed), as many as the shape holds
(the tests give wrong counts on purpose only through SHAPE). The archive is what np.savez
writes (members NAME.npy, stored) or, with --deflate, np.savez_compressed (deflated); --zip64
forces ZIP64 records as NumPy writes for members over 4 GiB. --fortran NAME marks that array's
header fortran_order True (the data stays as given); --bzip2 compresses with a method NumPy
never uses; DTYPE 'raw' writes VALUES' text as the member's bytes (not a .npy at all). write_npz
is also imported by
make_ogb.py. Standard library only: the tests must not need NumPy's own writer to check ours.
"""
import struct
import sys
import zipfile

_PACK = {"i1": "b", "i2": "h", "i4": "i", "i8": "q", "u1": "B", "u2": "H", "u4": "I", "u8": "Q",
         "f2": "e", "f4": "f", "f8": "d", "b1": "?"}


def npy_bytes(descr, shape, values, fortran=False):
    """The bytes of a .npy file (version 1.0): magic, header dict padded to 64 bytes, data."""
    shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(str(d) for d in shape) + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", shape_text)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    endian = ">" if descr[0] == ">" else "<"
    code = _PACK[descr[1:]]
    conv = float if code in "efd" else (lambda v: bool(int(v))) if code == "?" else int
    data = struct.pack(endian + code * len(values), *[conv(v) for v in values])
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin-1") + data


def write_npz(path, arrays, deflate=False, zip64=False, fortran=(), bzip2=False):
    """arrays: [(name, descr, shape tuple, values list)] into path as np.savez(_compressed) would."""
    method = zipfile.ZIP_BZIP2 if bzip2 else zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    # ZIP64 as for members over 4 GiB: zipfile writes a record in ZIP64 form when a size or offset
    # passes its limit, so a limit of 0 puts every size and offset in the ZIP64 extra fields and
    # adds the ZIP64 end of central directory record and its locator
    limit = zipfile.ZIP64_LIMIT
    if zip64:
        zipfile.ZIP64_LIMIT = 0
    try:
        with zipfile.ZipFile(path, "w", compression=method) as z:
            for name, descr, shape, values in arrays:
                with z.open(name + ".npy", "w", force_zip64=zip64) as f:
                    f.write(",".join(values).encode() if descr == "raw" else npy_bytes(descr, shape, values, name in fortran))
    finally:
        zipfile.ZIP64_LIMIT = limit
    if zip64:  # the 32-bit end record's counts and offset as an archive over 4 GiB has them: all ones
        with open(path, "r+b") as f:
            data = f.read()
            at = data.rfind(b"PK\x05\x06")
            f.seek(at + 8)
            f.write(b"\xff" * 12)


def main(argv):
    out, deflate, zip64, bzip2, fortran, arrays = None, False, False, False, [], []
    it = iter(argv)
    for a in it:
        if a == "--deflate":
            deflate = True
        elif a == "--bzip2":
            bzip2 = True
        elif a == "--zip64":
            zip64 = True
        elif a == "--fortran":
            fortran.append(next(it))
        elif out is None:
            out = a
        else:
            name, descr, shape, values = a.split(":", 3)
            shape = tuple(int(d) for d in shape.split(",") if d)
            arrays.append((name, descr, shape, [v for v in values.split(",") if v]))
    write_npz(out, arrays, deflate, zip64, fortran, bzip2)


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""Generates BlasOperandTable.java: the kind of every public static method of
jcuda.jcublas.JCublas2 and the role of each of its parameters.

Usage:
    gen_blas_operand_table.py SOURCE > \
        interceptor/src/main/java/dev/kernelweave/interceptor/cublas/BlasOperandTable.java

SOURCE is the JCublas2.java of the JCublas release the agent targets (12.6.0), or the
sources jar of org.jcuda:jcublas that holds it (jcublas-12.6.0-sources.jar in the local
Maven repository). Roles come from the routine family (the name without
the "cublas" prefix, the "_v2", "_64" and "_new" suffixes) and the parameter names of
the sources (A, lda, x, incx, result, alpha, Aarray, info...). Every family is listed
below by hand, with the roles of its pointer parameters; the script fails on a method
it cannot place, on a pointer or array parameter that its family does not name, and on
a family entry that no method uses, so a new JCublas release cannot slip through with
guessed roles.

Role codes (BlasOperandRole.code()):
    (none) NONE     R READ      W WRITE      RW READ_WRITE
    SI SCALAR_IN    SO SCALAR_OUT            SIO SCALAR_IN_OUT
    PR POINTER_ARRAY_READ   PW POINTER_ARRAY_WRITE   PRW POINTER_ARRAY_READ_WRITE
    INFO INFO_OUT   HR HOST_READ   HW HOST_WRITE
"""
import re
import sys
import zipfile

# --- parsing ---------------------------------------------------------------------------

JVM_TYPES = {
    'int': 'I', 'long': 'J', 'boolean': 'Z', 'void': 'V',
    'String': 'Ljava/lang/String;',
    'Pointer': 'Ljcuda/Pointer;',
    'LogLevel': 'Ljcuda/LogLevel;',
    'cublasHandle': 'Ljcuda/jcublas/cublasHandle;',
    'cublasLogCallback': 'Ljcuda/jcublas/cublasLogCallback;',
    'cudaStream_t': 'Ljcuda/runtime/cudaStream_t;',
}


def jvm_type(t):
    if t.endswith('[]'):
        return '[' + jvm_type(t[:-2])
    if t not in JVM_TYPES:
        raise SystemExit(f'unknown Java type {t}')
    return JVM_TYPES[t]


def method_body(src, start):
    """The text from start (just after an opening brace) to its matching closing brace."""
    depth = 1
    i = start
    while depth:
        c = src[i]
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
        i += 1
    return src[start:i - 1]


def read_source(path):
    if path.endswith('.jar'):
        with zipfile.ZipFile(path) as jar:
            return jar.read('jcuda/jcublas/JCublas2.java').decode('utf-8')
    with open(path, encoding='utf-8') as f:
        return f.read()


def parse(path):
    src = read_source(path)
    methods = []
    pattern = re.compile(r'public\s+static\s+([\w\[\]]+)\s+(\w+)\s*\(([^)]*)\)\s*\{', re.S)
    for m in pattern.finditer(src):
        ret, name, params = m.groups()
        body = method_body(src, m.end())
        params = re.sub(r'/\*.*?\*/', '', params, flags=re.S)
        params = re.sub(r'//[^\n]*', '', params)
        ps = []
        for p in params.split(','):
            p = p.strip()
            if p:
                t, n = p.rsplit(None, 1)
                ps.append((t.strip(), n))
        # A public method that does not call its own native twin but another public method
        # of the class is a Java wrapper; record which one does the work.
        delegate = '-'
        if not re.search(r'\b' + name + r'Native\s*\(', body):
            calls = [c for c in re.findall(r'\b(cublas\w+)\s*\(', body) if c != name]
            public_calls = [c for c in calls if re.search(r'public\s+static\s+\w+\s+' + c + r'\s*\(', src)]
            work = [c for c in public_calls if c.startswith(name)]
            if work:
                delegate = work[0]
        desc = '(' + ''.join(jvm_type(t) for t, _ in ps) + ')' + jvm_type(ret)
        methods.append((name, desc, ps, delegate))
    return methods


def family(name):
    base = re.sub(r'^cublas', '', name)
    while True:
        stripped = re.sub(r'(_v2|_64|_new)$', '', base)
        if stripped == base:
            return base
        base = stripped


# --- methods that are not device routines ------------------------------------------------

HOST = {
    # family: (kind, {parameter: role})
    'initialize': ('HOST_SETTING', {}),
    'setExceptionsEnabled': ('HOST_SETTING', {}),
    'setLogLevel': ('HOST_SETTING', {}),
    'Create': ('HANDLE_CREATE', {}),
    'Destroy': ('HANDLE_DESTROY', {}),
    'GetVersion': ('HOST_SETTING', {'version': 'HW'}),
    'GetProperty': ('HOST_SETTING', {'value': 'HW'}),
    'GetCudartVersion': ('HOST_SETTING', {}),
    'GetStatusName': ('HOST_SETTING', {}),
    'GetStatusString': ('HOST_SETTING', {}),
    'LoggerConfigure': ('HOST_SETTING', {}),
    'SetLoggerCallback': ('HOST_SETTING', {}),
    'GetLoggerCallback': ('HOST_SETTING', {}),
    'SetMathMode': ('HOST_SETTING', {}),
    'GetMathMode': ('HOST_SETTING', {'mode': 'HW'}),
    'SetAtomicsMode': ('HOST_SETTING', {}),
    'GetAtomicsMode': ('HOST_SETTING', {'mode': 'HW'}),
    'SetSmCountTarget': ('HOST_SETTING', {}),
    'GetSmCountTarget': ('HOST_SETTING', {'smCountTarget': 'HW'}),
    'MigrateComputeType': ('HOST_SETTING', {'computeType': 'HW'}),
    'SetStream': ('STREAM_SET', {}),
    'GetStream': ('STREAM_GET', {}),
    'SetPointerMode': ('POINTER_MODE_SET', {}),
    'GetPointerMode': ('POINTER_MODE_GET', {'mode': 'HW'}),
    'SetWorkspace': ('WORKSPACE_SET', {'workspace': 'RW'}),
    # Copies between host and device memory (cudaMemcpy2D underneath).
    'SetVector': ('COPY_TO_DEVICE', {'x': 'HR', 'devicePtr': 'W'}),
    'SetVectorAsync': ('COPY_TO_DEVICE', {'hostPtr': 'HR', 'devicePtr': 'W'}),
    'SetMatrix': ('COPY_TO_DEVICE', {'A': 'HR', 'B': 'W'}),
    'SetMatrixAsync': ('COPY_TO_DEVICE', {'A': 'HR', 'B': 'W'}),
    'GetVector': ('COPY_TO_HOST', {'x': 'R', 'y': 'HW'}),
    'GetVectorAsync': ('COPY_TO_HOST', {'devicePtr': 'R', 'hostPtr': 'HW'}),
    'GetMatrix': ('COPY_TO_HOST', {'A': 'R', 'B': 'HW'}),
    'GetMatrixAsync': ('COPY_TO_HOST', {'A': 'R', 'B': 'HW'}),
}

# Families reviewed and left unclassified: the agent treats them as barriers.
UNKNOWN = set()

# --- device routines: (family pattern, {parameter: role}) -------------------------------
# Outputs that the routine may also read are READ_WRITE (gemm's C with beta != 0, gemv's y,
# ger's A, trsm's B, the x of trmv/trsv); pure outputs are WRITE (copy's y, geam's C,
# dgmm's C, trmm's C, the unpacked/packed output of tpttr/trttp).

SCALARS = {'alpha': 'SI', 'beta': 'SI'}

DEVICE = [
    # Level 1
    (r'[SDCZ]axpy|AxpyEx', {**SCALARS, 'x': 'R', 'y': 'RW'}),
    (r'[SD]dot|[CZ]dot[uc]|DotEx|DotcEx', {'x': 'R', 'y': 'R', 'result': 'SO'}),
    (r'[SD]nrm2|Scnrm2|Dznrm2|Nrm2Ex|[SD]asum|Scasum|Dzasum|AsumEx|I[sdcz]am(ax|in)|Iam(ax|in)Ex',
     {'x': 'R', 'result': 'SO'}),
    (r'[SDCZ]scal|Csscal|Zdscal|ScalEx', {**SCALARS, 'x': 'RW'}),
    (r'[SDCZ]copy|CopyEx', {'x': 'R', 'y': 'W'}),
    (r'[SDCZ]swap|SwapEx', {'x': 'RW', 'y': 'RW'}),
    (r'[SDCZ]rot|Csrot|Zdrot|RotEx', {'x': 'RW', 'y': 'RW', 'c': 'SI', 's': 'SI'}),
    (r'[SDCZ]rotg|RotgEx', {'a': 'SIO', 'b': 'SIO', 'c': 'SO', 's': 'SO'}),
    (r'[SD]rotm|RotmEx', {'x': 'RW', 'y': 'RW', 'param': 'SI'}),
    (r'[SD]rotmg|RotmgEx', {'d1': 'SIO', 'd2': 'SIO', 'x1': 'SIO', 'y1': 'SI', 'param': 'SO'}),
    # Level 2
    (r'[SDCZ]gemv|[SDCZ]gbmv|[SDCZ]symv|[SD]sbmv|[SD]spmv|[CZ]hemv|[CZ]hbmv|[CZ]hpmv|[SDCZ]gemvStridedBatched',
     {**SCALARS, 'A': 'R', 'AP': 'R', 'x': 'R', 'y': 'RW'}),
    (r'[SDCZ]gemvBatched', {**SCALARS, 'Aarray': 'PR', 'xarray': 'PR', 'yarray': 'PRW'}),
    (r'[SDCZ](trmv|tbmv|tpmv|trsv|tbsv|tpsv)', {'A': 'R', 'AP': 'R', 'x': 'RW'}),
    (r'[SD]ger|[CZ]ger[uc]|[SDCZ]syr|[CZ]her|[SDCZ]syr2|[CZ]her2', {**SCALARS, 'x': 'R', 'y': 'R', 'A': 'RW'}),
    (r'[SD]spr|[CZ]hpr|[SD]spr2|[CZ]hpr2', {**SCALARS, 'x': 'R', 'y': 'R', 'AP': 'RW'}),
    # Level 3 and extensions, C read unless beta is zero
    (r'[SDCZ]gemm|[CZ]gemm3m|[SC]gemmEx|Cgemm3mEx|GemmEx'
     r'|[SDCZ]gemmStridedBatched|Cgemm3mStridedBatched|GemmStridedBatchedEx'
     r'|[SDCZ]symm|[CZ]hemm|[SDCZ]syr2k|[CZ]her2k|[SDCZ]syrkx|[CZ]herkx'
     r'|[SDCZ]syrk|[CZ]herk|Csyrk(3m)?Ex|Cherk(3m)?Ex',
     {**SCALARS, 'A': 'R', 'B': 'R', 'C': 'RW'}),
    (r'[SDCZ]gemmBatched|Cgemm3mBatched|GemmBatchedEx',
     {**SCALARS, 'Aarray': 'PR', 'Barray': 'PR', 'Carray': 'PRW'}),
    (r'[SDCZ]geam', {**SCALARS, 'A': 'R', 'B': 'R', 'C': 'W'}),
    (r'[SDCZ]dgmm', {'A': 'R', 'x': 'R', 'C': 'W'}),
    (r'[SDCZ]trmm', {**SCALARS, 'A': 'R', 'B': 'R', 'C': 'W'}),
    (r'[SDCZ]trsm', {**SCALARS, 'A': 'R', 'B': 'RW'}),
    (r'[SDCZ]trsmBatched', {**SCALARS, 'A': 'PR', 'B': 'PRW'}),
    (r'[SDCZ]tpttr', {'AP': 'R', 'A': 'W'}),
    (r'[SDCZ]trttp', {'A': 'R', 'AP': 'W'}),
    # Batched LAPACK-like routines. The info of getrs, geqrf and gels is a host int
    # (parameter validation); the other info and pivot arrays are device memory.
    (r'[SDCZ]getrfBatched', {'A': 'PRW', 'P': 'INFO', 'info': 'INFO'}),
    (r'[SDCZ]getriBatched', {'A': 'PR', 'P': 'R', 'C': 'PW', 'info': 'INFO'}),
    (r'[SDCZ]getrsBatched', {'Aarray': 'PR', 'devIpiv': 'R', 'Barray': 'PRW', 'info': 'HW'}),
    (r'[SDCZ]matinvBatched', {'A': 'PR', 'Ainv': 'PW', 'info': 'INFO'}),
    (r'[SDCZ]geqrfBatched', {'Aarray': 'PRW', 'TauArray': 'PW', 'info': 'HW'}),
    (r'[SDCZ]gelsBatched', {'Aarray': 'PRW', 'Carray': 'PRW', 'info': 'HW', 'devInfoArray': 'INFO'}),
]

PLAIN = {'int', 'long', 'boolean', 'cublasHandle', 'cudaStream_t', 'String', 'LogLevel',
         'cublasLogCallback', 'cublasLogCallback[]'}


def classify(name, ps):
    fam = family(name)
    if fam in UNKNOWN:
        return 'UNKNOWN', {}, None
    if fam in HOST:
        kind, roles = HOST[fam]
        return kind, roles, ('HOST', fam)
    hits = [i for i, (pat, _) in enumerate(DEVICE) if re.fullmatch(pat, fam)]
    if len(hits) != 1:
        raise SystemExit(f'{name}: family {fam} matches {len(hits)} device rules')
    return 'DEVICE_ROUTINE', DEVICE[hits[0]][1], ('DEVICE', hits[0])


def main(path):
    methods = parse(path)
    used = {}
    rows = []
    for name, desc, ps, delegate in methods:
        kind, roles, rule = classify(name, ps)
        tokens = []
        for t, n in ps:
            role = roles.get(n)
            if role is None and kind != 'UNKNOWN' and t not in PLAIN:
                raise SystemExit(f'{name}: no role for {t} {n}')
            if role is not None:
                used.setdefault(rule, set()).add(n)
            if role is not None and t in PLAIN:
                raise SystemExit(f'{name}: role {role} for a {t} parameter {n}')
            tokens.append(n if role is None else f'{n}:{role}')
        if kind == 'DEVICE_ROUTINE' and (not ps or ps[0][0] != 'cublasHandle'):
            raise SystemExit(f'{name}: device routine without a leading handle')
        rows.append((name, kind, delegate, desc, tokens))
    families = {family(r[0]) for r in rows}
    for key in list(HOST) + sorted(UNKNOWN):
        if key not in families:
            raise SystemExit(f'entry {key} matches no method')
    for key, (kind, roles) in HOST.items():
        unused = set(roles) - used.get(('HOST', key), set())
        if unused:
            raise SystemExit(f'host entry {key}: roles never used {unused}')
    for i, (pat, roles) in enumerate(DEVICE):
        unused = set(roles) - used.get(('DEVICE', i), set()) - set(SCALARS)
        if unused:
            raise SystemExit(f'device rule {pat}: roles never used {unused}')
    if not any(r[0] == 'DEVICE' for r in used):
        raise SystemExit('no device routine found')
    names = [r[0] for r in rows]
    if len(set(names)) != len(names):
        raise SystemExit('overloaded method names: the table keys on the name')
    emit(rows)


def emit(rows):
    out = sys.stdout
    out.write('''package dev.kernelweave.interceptor.cublas;

/**
 * The operand roles of every public static method of {@code jcuda.jcublas.JCublas2} 12.6.0.
 *
 * <p>Generated by {@code interceptor/src/test/tools/gen_blas_operand_table.py} from the
 * JCublas2.java of org.jcuda:jcublas 12.6.0; edit the script, not this file.
 *
 * <p>One row per method, fields separated by single spaces: the method name, its
 * {@link BlasRoutineKind}, the public method it delegates its work to ({@code -} for none),
 * its JVM descriptor, then one token per parameter: the parameter name, followed for every
 * role but {@link BlasOperandRole#NONE} by a colon and the {@linkplain BlasOperandRole#code()
 * role code}.
 */
final class BlasOperandTable {

  private BlasOperandTable() {}

  static final String[] ROWS = {
''')
    for name, kind, delegate, desc, tokens in rows:
        out.write('    "' + ' '.join([name, kind, delegate, desc] + tokens) + '",\n')
    out.write('''  };
}
''')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])

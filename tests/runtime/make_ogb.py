"""make_ogb.py -- writes a gnnc dataset folder in OGB's node-property-prediction layout.

    make_ogb.py SRC OUT [--plain | --npz [--deflate] [--zip64]] [--split NAME]

SRC is a folder as data/cora: graph.edges, features.svm (LIBSVM), labels.txt, train/val/test.idx.
OUT gets what an OGB download has (ogb/io/read_graph_raw.py): raw/edge.csv.gz ("src,dst"),
raw/num-node-list.csv.gz, raw/num-edge-list.csv.gz, raw/node-feat.csv.gz (dense rows),
raw/node-label.csv.gz, split/NAME/{train,valid,test}.csv.gz; --plain writes .csv files instead.
--npz writes OGB's binary layout instead (ogbn-papers100M's; read_binary_graph_raw):
raw/data.npz with edge_index (2 x E, int64), num_nodes_list, num_edges_list and node_feat
(float32), raw/node-label.npz with node_label (N x 1, float64), the splits as CSV; stored as
np.savez does, or deflated (--deflate, np.savez_compressed), --zip64 with ZIP64 records.
The tests load both folders and compare (tests/suites/runtime.sh): the same graph, features,
labels and splits, whichever layout they came in. Standard library only (no network: the
tests cannot download a real OGB dataset).
"""
import gzip
import os
import sys


def rows(path):
    with open(path) as f:
        return [ln.split() for ln in f if ln.strip() and not ln.lstrip().startswith('#')]


def write(path, lines, plain):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = ''.join(ln + '\n' for ln in lines).encode()
    if plain:
        open(path[:-3], 'wb').write(data)
    else:
        with gzip.open(path, 'wb') as f:
            f.write(data)


def main(argv):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    args = [a for a in argv if not a.startswith('--')]
    plain = '--plain' in argv
    split = argv[argv.index('--split') + 1] if '--split' in argv else 'random'
    args = [a for a in args if a != split]
    src, out = args
    edges = [r[:2] for r in rows(os.path.join(src, 'graph.edges'))]
    labels = [r[0] for r in rows(os.path.join(src, 'labels.txt'))]
    nv = len(labels)
    feats = []
    width = 0
    for r in rows(os.path.join(src, 'features.svm')):
        cells = {int(k): v for k, v in (c.split(':') for c in r[1:])}
        feats.append(cells)
        width = max([width] + list(cells))
    raw = os.path.join(out, 'raw')
    if '--npz' in argv:
        from make_npz import write_npz
        os.makedirs(raw, exist_ok=True)
        ne, opts = len(edges), dict(deflate='--deflate' in argv, zip64='--zip64' in argv)
        write_npz(os.path.join(raw, 'data.npz'), [
            ('edge_index', '<i8', (2, ne), [s for s, _ in edges] + [d for _, d in edges]),
            ('num_nodes_list', '<i8', (1,), [nv]), ('num_edges_list', '<i8', (1,), [ne]),
            ('node_feat', '<f4', (nv, width), [c.get(i, '0') for c in feats for i in range(1, width + 1)])], **opts)
        write_npz(os.path.join(raw, 'node-label.npz'), [('node_label', '<f8', (nv, 1), labels)], **opts)
        for ours, theirs in (('train', 'train'), ('val', 'valid'), ('test', 'test')):
            ids = [r[0] for r in rows(os.path.join(src, ours + '.idx'))]
            write(os.path.join(out, 'split', split, theirs + '.csv.gz'), ids, False)
        return
    write(os.path.join(raw, 'edge.csv.gz'), [s + ',' + d for s, d in edges], plain)
    write(os.path.join(raw, 'num-node-list.csv.gz'), [str(nv)], plain)
    write(os.path.join(raw, 'num-edge-list.csv.gz'), [str(len(edges))], plain)
    write(os.path.join(raw, 'node-feat.csv.gz'),
          [','.join(c.get(i, '0') for i in range(1, width + 1)) for c in feats], plain)
    write(os.path.join(raw, 'node-label.csv.gz'), labels, plain)
    for ours, theirs in (('train', 'train'), ('val', 'valid'), ('test', 'test')):
        ids = [r[0] for r in rows(os.path.join(src, ours + '.idx'))]
        write(os.path.join(out, 'split', split, theirs + '.csv.gz'), ids, plain)


if __name__ == '__main__':
    main(sys.argv[1:])

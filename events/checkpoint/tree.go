package checkpoint

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// ErrNode reports a node hash missing from storage or a tree that does not
// hold what was asked of it.
var ErrNode = errors.New("checkpoint: merkle tree")

var hasher = rfc6962.DefaultHasher

// NodeID names a node of the tree: level 0 are the leaves.
type NodeID = compact.NodeID

// LeafID is the node of leaf index.
func LeafID(index uint64) NodeID { return compact.NewNodeID(0, index) }

// LeafHash is the RFC 6962 hash of one stored event line: SHA-256 of a 0
// byte then the line. (rfc6962's Hasher makes a hash.Hash for each leaf; a
// line is copied after its prefix instead, where it fits on the stack.)
func LeafHash(line []byte) []byte {
	var buf [leafBuf]byte
	if len(line) >= leafBuf {
		return hasher.HashLeaf(line)
	}
	buf[0] = rfc6962.RFC6962LeafHashPrefix
	n := copy(buf[1:], line)
	h := sha256.Sum256(buf[:1+n])
	return h[:]
}

// leafBuf bounds the lines LeafHash hashes from a copy on the stack.
const leafBuf = 2048

// HashChildren is the RFC 6962 hash of an inner node: SHA-256 of a 1 byte
// then the two hashes.
func HashChildren(l, r []byte) []byte {
	if len(l) != sha256.Size || len(r) != sha256.Size {
		return hasher.HashChildren(l, r)
	}
	var buf [1 + 2*sha256.Size]byte
	buf[0] = rfc6962.RFC6962NodeHashPrefix
	copy(buf[1:], l)
	copy(buf[1+sha256.Size:], r)
	h := sha256.Sum256(buf[:])
	return h[:]
}

// EmptyRoot is the root of the tree of no leaves.
func EmptyRoot() []byte { return hasher.EmptyRoot() }

// Tree is a log's Merkle tree kept incrementally: appending a leaf costs
// O(log n), and each node it completes is reported for storage.
type Tree struct {
	r    *compact.Range
	last []byte // hash of the last leaf, nil when empty
}

var factory = &compact.RangeFactory{Hash: HashChildren}

// NewTree returns the empty tree.
func NewTree() *Tree { return &Tree{r: factory.NewEmptyRange(0)} }

// Resume rebuilds the compact tree of size leaves from stored nodes.
func Resume(size uint64, get NodeGetter) (*Tree, error) {
	if size == 0 {
		return NewTree(), nil
	}
	ids := compact.RangeNodes(0, size, nil)
	hashes, err := get(append(ids, LeafID(size-1)))
	if err != nil {
		return nil, err
	}
	r, err := factory.NewRange(0, size, hashes[:len(ids)])
	if err != nil {
		return nil, fmt.Errorf("%w: resume at %d: %v", ErrNode, size, err)
	}
	return &Tree{r: r, last: hashes[len(ids)]}, nil
}

// Append adds the leaf for one stored line; visit receives every node the
// leaf completes (the leaf itself included), to be stored.
func (t *Tree) Append(line []byte, visit func(id NodeID, hash []byte)) error {
	return t.AppendLeaf(LeafHash(line), visit)
}

// AppendLeaf is Append for a leaf already hashed (LeafHash).
func (t *Tree) AppendLeaf(h []byte, visit func(id NodeID, hash []byte)) error {
	if err := t.r.Append(h, visit); err != nil {
		return err
	}
	t.last = h
	return nil
}

// Clone returns a tree that appends independently of t from t's state
// (the hashes are immutable and shared).
func (t *Tree) Clone() *Tree {
	r, err := factory.NewRange(t.r.Begin(), t.r.End(), slices.Clone(t.r.Hashes()))
	if err != nil {
		// t's own range is valid by construction: unreachable.
		panic(fmt.Sprintf("checkpoint: clone of a valid range: %v", err))
	}
	return &Tree{r: r, last: t.last}
}

// Last is the hash of the last leaf appended, nil for the empty tree: what
// the next event links to (events.Envelope.Prev).
func (t *Tree) Last() []byte { return t.last }

// Head is what a command decides against besides the state: the size and
// root of the log, and the hash of its last leaf.
type Head struct {
	Size uint64
	Root []byte
	Last []byte
}

// Head returns the tree's head.
func (t *Tree) Head() Head { return Head{Size: t.Size(), Root: t.Root(), Last: t.last} }

// Size is the number of leaves.
func (t *Tree) Size() uint64 { return t.r.End() }

// Root is the root hash of the tree as it is.
func (t *Tree) Root() []byte {
	if t.r.End() == 0 {
		return EmptyRoot()
	}
	root, err := t.r.GetRootHash(nil)
	if err != nil {
		panic(fmt.Sprintf("checkpoint: root of a well-formed range: %v", err)) // the range is built by Append only
	}
	return root
}

// NodeGetter fetches stored node hashes, in the order asked.
type NodeGetter func(ids []NodeID) ([][]byte, error)

// RootAt computes the root of the first size leaves from stored nodes.
func RootAt(size uint64, get NodeGetter) ([]byte, error) {
	t, err := Resume(size, get)
	if err != nil {
		return nil, err
	}
	return t.Root(), nil
}

// InclusionProof is the RFC 6962 audit path of leaf index in the tree of size leaves.
func InclusionProof(index, size uint64, get NodeGetter) ([][]byte, error) {
	if index >= size {
		return nil, fmt.Errorf("%w: leaf %d is not in a tree of %d", ErrNode, index, size)
	}
	nodes, err := proof.Inclusion(index, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	return rehash(nodes, get)
}

// ConsistencyProof proves that the tree of size1 leaves is a prefix of the
// tree of size2 leaves.
func ConsistencyProof(size1, size2 uint64, get NodeGetter) ([][]byte, error) {
	if size1 > size2 {
		return nil, fmt.Errorf("%w: size %d is larger than %d", ErrNode, size1, size2)
	}
	nodes, err := proof.Consistency(size1, size2)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	return rehash(nodes, get)
}

func rehash(nodes proof.Nodes, get NodeGetter) ([][]byte, error) {
	hashes, err := get(nodes.IDs)
	if err != nil {
		return nil, err
	}
	out, err := nodes.Rehash(hashes, hasher.HashChildren)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	return out, nil
}

// VerifyInclusion checks an audit path against a root.
func VerifyInclusion(index, size uint64, leafHash []byte, path [][]byte, root []byte) error {
	return proof.VerifyInclusion(hasher, index, size, leafHash, path, root)
}

// VerifyConsistency checks a consistency proof between two roots.
func VerifyConsistency(size1, size2 uint64, path [][]byte, root1, root2 []byte) error {
	return proof.VerifyConsistency(hasher, size1, size2, path, root1, root2)
}

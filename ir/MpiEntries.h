/// \file
/// The MPI entry points of the collectives: one list, from which both the
/// code `collc --emit mpi` generates (backends/Mpi.cpp writes it as text)
/// and the drop-in library's interposers (dropin/Interpose.cpp compiles it)
/// come, so that the two never disagree on a signature or on what a call
/// hands the runtime.
///
/// COLLC_MPI_COLLECTIVES(X, Extra) expands X(Coll, ICall, Shape, Extra) for
/// every collective that has an entry point of its own (ir/Collective.h:
/// CollectiveTraits::Entry), in the order of Collective: Coll is the
/// blocking call's name after "MPI_" (Bcast), ICall the non-blocking one's
/// (Ibcast), Shape one of the COLLC_MPI_SHAPE_* macros below, and Extra what
/// the caller passes through (e.g. another macro to apply).
///
/// A shape is a macro of the count's type (int, or MPI_Count for MPI-4's
/// large-count forms, MPI_Bcast_c) that gives three parenthesized lists:
///   (Params): the C parameters of the blocking call;
///   (Fields): collc::rt::Call's fields after the collective (runtime/collc/
///             runtime.h): send buffer, count and datatype, receive buffer,
///             count and datatype, operator, root, communicator;
///   (Args):   the parameters' names, to hand the call to the MPI library.
/// The non-blocking call takes the same parameters and an MPI_Request *, the
/// persistent one (MPI_Bcast_init) an MPI_Info and an MPI_Request * more.
/// COLLC_MPI_APPLY(F, Coll, ICall, Shape) calls F(Coll, ICall, (Params),
/// (Fields), (Args)) with int counts, COLLC_MPI_APPLY_LARGE with MPI_Count.
///
/// Plain preprocessor text: it names MPI's types but includes no MPI header,
/// so the compiler (which never includes mpi.h) can stringize it.
#ifndef COLLC_IR_MPIENTRIES_H
#define COLLC_IR_MPIENTRIES_H

#define COLLC_MPI_COLLECTIVES(X, Extra)                                        \
  X(Bcast, Ibcast, COLLC_MPI_SHAPE_BCAST, Extra)                               \
  X(Reduce, Ireduce, COLLC_MPI_SHAPE_REDUCE, Extra)                            \
  X(Allreduce, Iallreduce, COLLC_MPI_SHAPE_ALLREDUCE, Extra)                   \
  X(Scan, Iscan, COLLC_MPI_SHAPE_ALLREDUCE, Extra)                             \
  X(Exscan, Iexscan, COLLC_MPI_SHAPE_ALLREDUCE, Extra)                         \
  X(Gather, Igather, COLLC_MPI_SHAPE_GATHER, Extra)                            \
  X(Scatter, Iscatter, COLLC_MPI_SHAPE_GATHER, Extra)                          \
  X(Allgather, Iallgather, COLLC_MPI_SHAPE_ALLGATHER, Extra)                   \
  X(Alltoall, Ialltoall, COLLC_MPI_SHAPE_ALLGATHER, Extra)                     \
  X(Barrier, Ibarrier, COLLC_MPI_SHAPE_BARRIER, Extra)                         \
  X(Reduce_scatter_block, Ireduce_scatter_block,                               \
    COLLC_MPI_SHAPE_REDUCE_SCATTER_BLOCK, Extra)

/// Broadcast: one buffer, sent by the root and received by the others.
#define COLLC_MPI_SHAPE_BCAST(Count)                                           \
  (void *buf, Count count, MPI_Datatype type, int root, MPI_Comm comm),        \
      (buf, count, type, buf, count, type, MPI_OP_NULL, root, comm),           \
      (buf, count, type, root, comm)
/// A reduction to a root.
#define COLLC_MPI_SHAPE_REDUCE(Count)                                          \
  (const void *sendbuf, void *recvbuf, Count count, MPI_Datatype type,         \
   MPI_Op op, int root, MPI_Comm comm),                                        \
      (sendbuf, count, type, recvbuf, count, type, op, root, comm),            \
      (sendbuf, recvbuf, count, type, op, root, comm)
/// A reduction every rank gets a result of (allreduce, scan, exscan).
#define COLLC_MPI_SHAPE_ALLREDUCE(Count)                                       \
  (const void *sendbuf, void *recvbuf, Count count, MPI_Datatype type,         \
   MPI_Op op, MPI_Comm comm),                                                  \
      (sendbuf, count, type, recvbuf, count, type, op, 0, comm),               \
      (sendbuf, recvbuf, count, type, op, comm)
/// Reduce-scatter: every rank contributes count x P elements and gets its
/// block of count elements reduced (the runtime measures the whole vector).
#define COLLC_MPI_SHAPE_REDUCE_SCATTER_BLOCK(Count)                            \
  (const void *sendbuf, void *recvbuf, Count recvcount, MPI_Datatype type,     \
   MPI_Op op, MPI_Comm comm),                                                  \
      (sendbuf, recvcount, type, recvbuf, recvcount, type, op, 0, comm),       \
      (sendbuf, recvbuf, recvcount, type, op, comm)
/// Personalized data to or from a root (gather, scatter).
#define COLLC_MPI_SHAPE_GATHER(Count)                                          \
  (const void *sendbuf, Count sendcount, MPI_Datatype sendtype, void *recvbuf, \
   Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),           \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,             \
       MPI_OP_NULL, root, comm),                                               \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
/// Data from every rank to every rank (allgather, alltoall).
#define COLLC_MPI_SHAPE_ALLGATHER(Count)                                       \
  (const void *sendbuf, Count sendcount, MPI_Datatype sendtype, void *recvbuf, \
   Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),                     \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,             \
       MPI_OP_NULL, 0, comm),                                                  \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
/// The barrier: no data.
#define COLLC_MPI_SHAPE_BARRIER(Count)                                         \
  (MPI_Comm comm),                                                             \
      (nullptr, 0, MPI_BYTE, nullptr, 0, MPI_BYTE, MPI_OP_NULL, 0, comm),      \
      (comm)

/// COLLC_MPI_OTHERS(X, Extra) expands X(Coll, ICall, Shape, Why, Extra) for
/// every MPI collective that is no collective of collc's own: the drop-in
/// interposes each in its three forms, so that a program's every call is
/// accounted for, serves what one of collc's collectives can serve
/// (MPI_Allgatherv: an allgather of blocks of the largest count, when they
/// are all equal or the padding at most doubles what moves;
/// MPI_Reduce_scatter likewise: a reduce-scatter) and hands the
/// rest to the MPI library, saying Why under COLLC_VERBOSE. Shape is one of
/// the COLLC_MPI_VSHAPE_* macros below: Shape(Count, Displ) is two
/// parenthesized lists, (Params) and (Args), as above, with the counts of
/// type Count and the displacements of type Displ (int, int for MPI-3's
/// calls; MPI_Count, MPI_Aint for MPI-4's large-count forms). README.md's table
/// of what is served lists them with their Why (tests/ir/MpiEntriesTest.cpp
/// checks it).
#define COLLC_MPI_OTHERS(X, Extra)                                             \
  X(Allgatherv, Iallgatherv, COLLC_MPI_VSHAPE_ALLGATHERV,                      \
    COLLC_MPI_PADDING("allgather"), Extra)                                     \
  X(Gatherv, Igatherv, COLLC_MPI_VSHAPE_GATHERV,                               \
    COLLC_MPI_ROOT_COUNTS("a gather"), Extra)                                  \
  X(Scatterv, Iscatterv, COLLC_MPI_VSHAPE_SCATTERV,                            \
    COLLC_MPI_ROOT_COUNTS("a scatter"), Extra)                                 \
  X(Alltoallv, Ialltoallv, COLLC_MPI_VSHAPE_ALLTOALLV,                         \
    "collc: each rank knows only its own counts, so no rank can tell alone "   \
    "whether an all-to-all of blocks of one size would serve them",            \
    Extra)                                                                     \
  X(Alltoallw, Ialltoallw, COLLC_MPI_VSHAPE_ALLTOALLW,                         \
    "collc: each rank knows only its own counts and datatypes, so no rank "    \
    "can tell alone whether an all-to-all of blocks of one size would serve "  \
    "them",                                                                    \
    Extra)                                                                     \
  X(Reduce_scatter, Ireduce_scatter, COLLC_MPI_VSHAPE_REDUCE_SCATTER,          \
    COLLC_MPI_PADDING("reduce-scatter"), Extra)                                \
  X(Neighbor_allgather, Ineighbor_allgather, COLLC_MPI_VSHAPE_ALLGATHER,       \
    COLLC_MPI_NEIGHBORHOOD, Extra)                                             \
  X(Neighbor_allgatherv, Ineighbor_allgatherv, COLLC_MPI_VSHAPE_ALLGATHERV,    \
    COLLC_MPI_NEIGHBORHOOD, Extra)                                             \
  X(Neighbor_alltoall, Ineighbor_alltoall, COLLC_MPI_VSHAPE_ALLGATHER,         \
    COLLC_MPI_NEIGHBORHOOD, Extra)                                             \
  X(Neighbor_alltoallv, Ineighbor_alltoallv, COLLC_MPI_VSHAPE_ALLTOALLV,       \
    COLLC_MPI_NEIGHBORHOOD, Extra)                                             \
  X(Neighbor_alltoallw, Ineighbor_alltoallw,                                   \
    COLLC_MPI_VSHAPE_NEIGHBOR_ALLTOALLW, COLLC_MPI_NEIGHBORHOOD, Extra)

/// Why the v-forms go to the MPI library when they do: blocks of the
/// largest count would more than double what \p Coll moves; only the root
/// knows the counts of \p Call (a gather, a scatter).
#define COLLC_MPI_PADDING(Coll)                                                \
  "collc: the counts differ by rank so much that blocks of the largest "       \
  "would more than double what collc's " Coll " moves"
#define COLLC_MPI_ROOT_COUNTS(Call)                                            \
  "collc: only the root knows the counts, so no rank can tell alone "          \
  "whether " Call " of blocks of one size would serve them"
/// Why the neighborhood collectives go to the MPI library.
#define COLLC_MPI_NEIGHBORHOOD                                                 \
  "collc: the neighbours of a Cartesian or graph topology are no rank set "    \
  "collc schedules (each rank's differ)"

/// The shapes of COLLC_MPI_OTHERS: Shape(Count, Displ) is (Params), (Args).
#define COLLC_MPI_VSHAPE_ALLGATHER(Count, Displ)                               \
  (const void *sendbuf, Count sendcount, MPI_Datatype sendtype, void *recvbuf, \
   Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),                     \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
#define COLLC_MPI_VSHAPE_ALLGATHERV(Count, Displ)                              \
  (const void *sendbuf, Count sendcount, MPI_Datatype sendtype, void *recvbuf, \
   const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype,      \
   MPI_Comm comm),                                                             \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,    \
       comm)
#define COLLC_MPI_VSHAPE_GATHERV(Count, Displ)                                 \
  (const void *sendbuf, Count sendcount, MPI_Datatype sendtype, void *recvbuf, \
   const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype,      \
   int root, MPI_Comm comm),                                                   \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,    \
       root, comm)
#define COLLC_MPI_VSHAPE_SCATTERV(Count, Displ)                                \
  (const void *sendbuf, const Count sendcounts[], const Displ displs[],        \
   MPI_Datatype sendtype, void *recvbuf, Count recvcount,                      \
   MPI_Datatype recvtype, int root, MPI_Comm comm),                            \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,    \
       root, comm)
#define COLLC_MPI_VSHAPE_ALLTOALLV(Count, Displ)                               \
  (const void *sendbuf, const Count sendcounts[], const Displ sdispls[],       \
   MPI_Datatype sendtype, void *recvbuf, const Count recvcounts[],             \
   const Displ rdispls[], MPI_Datatype recvtype, MPI_Comm comm),               \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,   \
       recvtype, comm)
#define COLLC_MPI_VSHAPE_ALLTOALLW(Count, Displ)                               \
  (const void *sendbuf, const Count sendcounts[], const Displ sdispls[],       \
   const MPI_Datatype sendtypes[], void *recvbuf, const Count recvcounts[],    \
   const Displ rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),      \
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,  \
       recvtypes, comm)
/// MPI_Neighbor_alltoallw: MPI_Alltoallw's, its displacements MPI_Aint in
/// both forms.
#define COLLC_MPI_VSHAPE_NEIGHBOR_ALLTOALLW(Count, Displ)                      \
  COLLC_MPI_VSHAPE_ALLTOALLW(Count, MPI_Aint)
#define COLLC_MPI_VSHAPE_REDUCE_SCATTER(Count, Displ)                          \
  (const void *sendbuf, void *recvbuf, const Count recvcounts[],               \
   MPI_Datatype type, MPI_Op op, MPI_Comm comm),                               \
      (sendbuf, recvbuf, recvcounts, type, op, comm)

/// F(Coll, ICall, (Params), (Fields), (Args)) for shape \p Shape with int
/// counts (the calls of MPI-3); COLLC_MPI_APPLY_LARGE likewise with MPI_Count
/// counts (MPI-4's large-count forms, MPI_Bcast_c).
#define COLLC_MPI_APPLY(F, Coll, ICall, Shape)                                 \
  COLLC_MPI_APPLY_(F, Coll, ICall, Shape(int))
#define COLLC_MPI_APPLY_LARGE(F, Coll, ICall, Shape)                           \
  COLLC_MPI_IF_COUNTED(Shape, F, Coll, ICall, Shape(MPI_Count))
#define COLLC_MPI_APPLY_(F, ...) F(__VA_ARGS__)

/// COLLC_MPI_IF_COUNTED(Shape, F, ...) is F(...) for a shape with a count,
/// and nothing for the barrier's: it counts nothing, and MPI-4 gives it no
/// large-count form.
#define COLLC_MPI_IF_COUNTED(Shape, ...) Shape##_COUNTED(__VA_ARGS__)
#define COLLC_MPI_SHAPE_BCAST_COUNTED COLLC_MPI_APPLY_
#define COLLC_MPI_SHAPE_REDUCE_COUNTED COLLC_MPI_APPLY_
#define COLLC_MPI_SHAPE_ALLREDUCE_COUNTED COLLC_MPI_APPLY_
#define COLLC_MPI_SHAPE_REDUCE_SCATTER_BLOCK_COUNTED COLLC_MPI_APPLY_
#define COLLC_MPI_SHAPE_GATHER_COUNTED COLLC_MPI_APPLY_
#define COLLC_MPI_SHAPE_ALLGATHER_COUNTED COLLC_MPI_APPLY_
#define COLLC_MPI_SHAPE_BARRIER_COUNTED(...)

/// The tokens of a parenthesized list, without the parentheses.
#define COLLC_MPI_UNPAREN(...) __VA_ARGS__

#endif

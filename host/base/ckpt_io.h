/* ckpt_io.h: checkpoint records (base layer: no model), for bristle run --checkpoint-every, --resume,
 * SIGINT/SIGTERM and the substeps' in-memory snapshot.
 * A checkpoint is a sequence of tagged records written and read by the same code: each stage that
 * owns mutable state has one function that takes a br_ckpt and calls br_ckpt_io on every array,
 * writing when the checkpoint is being written and reading (with the tag and size checked) when a
 * run resumes. So the two directions cannot disagree about what a checkpoint holds.
 * File layout: "BRISTLE-CHECKPOINT <version>\n", the model hash (8 bytes), then records
 * (tag: 16 bytes, size: 8 bytes, data), and an "end" record. Written to NAME.tmp, fsync'd and
 * renamed, so a checkpoint on disk is always whole. */
#ifndef BR_CKPT_IO_H
#define BR_CKPT_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct br_ckpt {
    FILE *fp;
    int writing; /* 1: write records, 0: read them */
    int failed;  /* sticky: the first failure is kept in err */
    char err[256];
    /* in memory (br_ckpt_mem): the records' data alone, no tags, into or out of mem */
    unsigned char *mem;
    size_t pos, cap;
    int inmem;
} br_ckpt;

/* c (kept between calls: its buffer grows on the first snapshot and is reused), writing -> c set
 * to write records into memory from the start, or to read them back in the same order: the
 * snapshot a step that is taken again starts from (host/step/sim.c) */
void br_ckpt_mem(br_ckpt *c, int writing);

/* c -> its memory buffer freed */
void br_ckpt_mem_free(br_ckpt *c);

/* checkpoint, tag (< 16 characters), p, bytes -> the record written from p, or read into p after
 * checking that its tag and size match; 0, or -1 (c->failed and c->err set) */
int br_ckpt_io(br_ckpt *c, const char *tag, void *p, size_t bytes);

/* text of the scenario and its --set overrides -> a 64-bit hash (FNV-1a) that a checkpoint carries,
 * so that it resumes only the scenario it came from */
uint64_t br_ckpt_hash(const char *text, size_t len, const char *const *sets, int nsets);

/* path, hash -> c open for writing at path.tmp with the header written; 0, or -1 with c->err */
int br_ckpt_begin_write(br_ckpt *c, const char *path, uint64_t hash);

/* c (writing), path -> the "end" record, flushed, fsync'd and renamed to path; 0, or -1 with c->err */
int br_ckpt_end_write(br_ckpt *c, const char *path);

/* path, hash -> c open for reading after the header, whose hash must equal hash; 0, or -1 with c->err */
int br_ckpt_begin_read(br_ckpt *c, const char *path, uint64_t hash);

/* c (reading) -> the "end" record checked and the file closed; 0, or -1 with c->err */
int br_ckpt_end_read(br_ckpt *c);

#endif

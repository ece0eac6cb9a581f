/* xml_init.h: libxml2 made ready once per process, before any reader
 * of libgrove parses XML (the hwloc checks, GRUG recipes).
 *
 * libxml2 (2.9) sets up its global tables (encodings, input callbacks,
 * the dictionary's lock, per-thread state keys) on the first parse, and
 * that set-up is not safe when two threads make it at once: a program
 * that parses from two threads must call xmlInitParser once first.  A
 * Flux broker runs the scheduler module and its feasibility thread,
 * both reading the nodes' hwloc XML at start-up; so every reader here
 * calls grovep_xml_init first, and the set-up is made exactly once
 * whichever thread comes first.  Not public API. */
#ifndef GROVE_XML_INIT_H
#define GROVE_XML_INIT_H

void grovep_xml_init(void);

#endif

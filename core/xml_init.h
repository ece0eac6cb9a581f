/* xml_init.h: libxml2 made ready once per process, before any reader
 * of libgrove parses XML (the hwloc checks, GRUG recipes).
 *
 * libxml2's documentation asks a program that parses from several
 * threads to call xmlInitParser once before any parse: a first parse
 * otherwise sets up the library's global state itself, and two first
 * parses at once do it twice.  A Flux broker runs the scheduler module
 * and its feasibility thread, both reading the nodes' hwloc XML at
 * start-up; so every reader here calls grovep_xml_init first, and the
 * set-up is made once (pthread_once) whichever thread comes first.  Not
 * public API. */
#ifndef GROVE_XML_INIT_H
#define GROVE_XML_INIT_H

void grovep_xml_init(void);

#endif

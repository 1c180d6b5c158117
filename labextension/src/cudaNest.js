// Which parts of a notebook code cell are CUDA C: the Python parser stays in charge of the
// cell, and @lezer/common's parseMixed hands these ranges to the C++ parser.
//
//  * a cell whose first line is the course's cell magic  `%%cuda NAME`  : the body, from
//    the second line to the end (barrier_course/notebook.py stores it in NAME);
//  * a triple-quoted string literal that holds a kernel (it mentions __global__,
//    __device__ or extern "C"): the text between its quotes. The exercises keep their kernels
//    as `source = r"""..."""` because the grader reads them as Python strings; this leaves
//    them strings and only colours their contents.

const CELL_MAGIC = /^\s*%%cuda\b[^\n]*\n/;
const KERNEL_WORDS = /__global__|__device__|extern\s+"C"/;
const TRIPLE_QUOTED = /^([A-Za-z]{0,2})("""|''')/;
// A cell longer than this is not looked at for the magic (it is on the first line anyway).
const FIRST_LINE_LIMIT = 1000;

/**
 * The `nest` function for parseMixed: given a node of the Python tree, the C++ parse to
 * mount on it (with the ranges it covers) or null.
 *
 * @param cppParser the C++ parser (a lezer Parser)
 */
export function cudaNest(cppParser) {
  return (node, input) => {
    if (node.type.isTop) {
      const head = input.read(node.from, Math.min(node.to, node.from + FIRST_LINE_LIMIT));
      const magic = CELL_MAGIC.exec(head);
      if (magic && node.from + magic[0].length < node.to) {
        return {
          parser: cppParser,
          overlay: [{ from: node.from + magic[0].length, to: node.to }]
        };
      }
      return null;
    }
    if (node.name === 'String' && node.to - node.from > 6) {
      const text = input.read(node.from, node.to);
      const open = TRIPLE_QUOTED.exec(text);
      if (!open || !text.endsWith(open[2])) {
        return null;  // not triple-quoted, or not closed yet (the student is typing)
      }
      const from = node.from + open[0].length;
      const to = node.to - 3;
      if (to > from && KERNEL_WORDS.test(text.slice(open[0].length, -3))) {
        return { parser: cppParser, overlay: [{ from, to }] };
      }
    }
    return null;
  };
}
